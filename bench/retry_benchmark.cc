// The retry driver around a call that succeeds: what a healthy call pays for
// being retryable. Compare with BM_Baseline_DirectCall in the same run.
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "stormguard/retry/retry_driver.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard::bench {
namespace {

// Runs the retry driver around a succeeding call with `policy`.
void RunSucceedingCalls(benchmark::State& state, const RetryPolicy& policy) {
  CallContext ctx;
  Random rng(1);
  Clock& clock = Clock::Real();
  AllocationMeter allocs(state);
  for (auto _ : state) {
    Status s = ExecuteWithRetry(
        policy, ctx, [](CallContext&) { return OpaqueSuccess() == 1 ? Status::Ok() : Status::Internal("unreachable"); },
        clock, rng);
    benchmark::DoNotOptimize(s);
  }
}

void BM_Retry_Success(benchmark::State& state) {
  static const RetryPolicy policy = RetryPolicy::Create(RetryOptions{}).value();
  RunSucceedingCalls(state, policy);
}
BENCHMARK(BM_Retry_Success);
BENCHMARK(BM_Retry_Success)->Threads(2);

// The same with a token-bucket budget shared by all calls: the success
// path adds a budget record (coarse clock + one atomic).
void BM_Retry_SuccessWithBudget(benchmark::State& state) {
  static const RetryPolicy policy =
      RetryPolicy::Create(RetryOptions{.budget = TokenBucketBudget::Create().value()}).value();
  RunSucceedingCalls(state, policy);
}
BENCHMARK(BM_Retry_SuccessWithBudget);
BENCHMARK(BM_Retry_SuccessWithBudget)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
