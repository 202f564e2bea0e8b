// The retry budgets' hot paths, each on one thread and on two sharing one
// budget (as every call to one destination does).
//
//   BM_<Budget>_RecordSuccess    what every healthy request pays:
//                                OnRequestStart + RecordSuccess + OnRequestEnd,
//                                with `now` moving 10 us per iteration on
//                                each thread, so window buckets fill, expire
//                                and get reused as in real traffic
//   BM_<Budget>_TryAcquireRetry  what every retry pays: TryAcquireRetry, and
//                                OnRetryEnd when granted (a no-op except for
//                                the concurrency budget), at a fixed `now`
//                                on a budget set up to grant it (the costlier
//                                path) and, for the gate, a populated window
//
// Calls go through RetryBudget& like the retry driver's. With two threads,
// google-benchmark 1.7 reports (wall time per thread) / (iterations of all
// threads), so 2-thread throughput / 1-thread throughput =
// Time(threads:1) / Time(threads:2).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "bench_util.h"
#include "stormguard/retry/budgets.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

constexpr Duration kStep = 10us;
const TimePoint kStart = TimePoint(1h);

// The budget under test; made once per run (before its threads start) by
// the run's Setup and dropped by its Teardown.
std::shared_ptr<RetryBudget> g_budget;

template <class T>
std::shared_ptr<RetryBudget> Must(Result<std::shared_ptr<T>> created) {
  if (!created.ok()) std::abort();
  return std::move(created).value();
}

void BM_RecordSuccess(benchmark::State& state) {
  AllocationMeter allocs(state);
  RetryBudget& budget = *g_budget;
  TimePoint now = kStart;
  for (auto _ : state) {
    budget.OnRequestStart(now);
    budget.RecordSuccess(now);
    budget.OnRequestEnd(now);
    now += kStep;
  }
}

void BM_TryAcquireRetry(benchmark::State& state) {
  AllocationMeter allocs(state);
  RetryBudget& budget = *g_budget;
  for (auto _ : state) {
    const bool granted = budget.TryAcquireRetry(kStart);
    if (granted) budget.OnRetryEnd(kStart);
    benchmark::DoNotOptimize(granted);
  }
}

// <true> makes the budget for the retry runs: options that keep retries
// granted for the whole run, and a window with traffic in every bucket.
template <bool kForRetries>
void MakeTokenBucket(const benchmark::State&) {
  g_budget = Must(TokenBucketBudget::Create({.max_tokens = kForRetries ? 1e9 : 10}));
}
void MakeGrpcThrottle(const benchmark::State&) { g_budget = Must(GrpcThrottleBudget::Create({})); }
template <bool kForRetries>
void MakeRatio(const benchmark::State&) {
  // A reserve of 1e6/s x 60 s outlasts every retry one run can withdraw.
  g_budget =
      Must(kForRetries ? RatioBudget::Create({.ttl = 60s, .min_retries_per_second = 1e6}) : RatioBudget::Create({}));
}
void MakeConcurrency(const benchmark::State&) { g_budget = Must(ConcurrencyBudget::Create({})); }
template <bool kForRetries>
void MakeFailureRateGate(const benchmark::State&) {
  g_budget = Must(FailureRateGate::Create({}));
  if (!kForRetries) return;
  for (int i = 0; i < 1000; ++i) g_budget->RecordSuccess(kStart - std::chrono::seconds(9 - i / 100));
  for (int i = 0; i < 10; ++i) g_budget->RecordFailure(kStart);  // 1%: the gate is open
}
void DropBudget(const benchmark::State&) { g_budget.reset(); }

using Setup = void (*)(const benchmark::State&);

void Register(const std::string& budget, Setup for_successes, Setup for_retries) {
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(("BM_" + budget + "_RecordSuccess").c_str(), BM_RecordSuccess)
        ->Setup(for_successes)
        ->Teardown(DropBudget)
        ->Threads(threads);
    benchmark::RegisterBenchmark(("BM_" + budget + "_TryAcquireRetry").c_str(), BM_TryAcquireRetry)
        ->Setup(for_retries)
        ->Teardown(DropBudget)
        ->Threads(threads);
  }
}

[[maybe_unused]] const bool kRegistered = [] {
  Register("TokenBucket", MakeTokenBucket<false>, MakeTokenBucket<true>);
  Register("GrpcThrottle", MakeGrpcThrottle, MakeGrpcThrottle);
  Register("Ratio", MakeRatio<false>, MakeRatio<true>);
  Register("Concurrency", MakeConcurrency, MakeConcurrency);
  Register("FailureRateGate", MakeFailureRateGate<false>, MakeFailureRateGate<true>);
  return true;
}();

}  // namespace
}  // namespace stormguard::bench
