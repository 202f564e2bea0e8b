// Cost of one admitted call through the AdaptiveLimiter: the lock-free
// admission plus the verdict. OnSuccess feeds the algorithm under a mutex;
// OnIgnore (no sample) shows the lock-free part alone.
#include <chrono>
#include <memory>

#include "guard_bench.h"
#include "stormguard/core/clock.h"
#include "stormguard/guard/adaptive_concurrency.h"

namespace stormguard::bench {
namespace {

// One limiter per run, made by thread 0 before the loop all threads enter together.
std::shared_ptr<AdaptiveLimiter> g_limiter;

// Admits a call, runs it, and gives the verdict `finish(token)`.
template <class Finish>
void RunThroughLimiter(benchmark::State& state, Finish finish) {
  if (state.thread_index() == 0) {
    g_limiter = std::move(AdaptiveLimiter::Create({.algorithm = LimitKind::kAimd,
                                                   .aimd = {.initial_limit = 64, .min_limit = 8, .max_limit = 64}}))
                    .value();
  }
  const TimePoint now = Clock::Real().Now();
  RunAdmittedCalls(state, [&] {
    Result<AdaptiveLimiter::Token> token = g_limiter->TryAcquire(now);
    if (!token.ok()) return false;
    benchmark::DoNotOptimize(OpaqueSuccess());
    finish(*token, now + std::chrono::milliseconds(1));
    return true;
  });
}

void BM_Adaptive_AcquireRelease(benchmark::State& state) {
  RunThroughLimiter(state, [](AdaptiveLimiter::Token& t, TimePoint done) { t.OnSuccess(done); });
}
BENCHMARK(BM_Adaptive_AcquireRelease);
BENCHMARK(BM_Adaptive_AcquireRelease)->Threads(2);

void BM_Adaptive_AcquireIgnore(benchmark::State& state) {
  RunThroughLimiter(state, [](AdaptiveLimiter::Token& t, TimePoint) { t.OnIgnore(); });
}
BENCHMARK(BM_Adaptive_AcquireIgnore);
BENCHMARK(BM_Adaptive_AcquireIgnore)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
