// Cost of taking one token from a shared RateLimiter around a call.
#include <memory>

#include "guard_bench.h"
#include "stormguard/guard/rate_limiter.h"

namespace stormguard::bench {
namespace {

// One limiter per run, shared by that run's threads: thread 0 makes it
// before the timed loop, which every thread enters together.
std::shared_ptr<RateLimiter> g_limiter;

void BM_RateLimiter_Acquire(benchmark::State& state) {
  if (state.thread_index() == 0) {
    // A token per nanosecond and a two-second bucket: no call in a run is
    // refused, so this measures the success path (one CAS).
    g_limiter = std::move(RateLimiter::Create({.rate = 1e9, .burst = 2'000'000'000})).value();
  }
  const TimePoint now = Clock::Real().Now();
  RunAdmittedCalls(state, [&] {
    if (!g_limiter->TryAcquire(now).ok()) return false;
    benchmark::DoNotOptimize(OpaqueSuccess());
    return true;
  });
}
BENCHMARK(BM_RateLimiter_Acquire);
BENCHMARK(BM_RateLimiter_Acquire)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
