// Cost of taking one token from a fleet-wide GlobalRateLimiter's lease,
// next to the local RateLimiter's (BM_RateLimiter_Acquire): run both with
// --benchmark_filter='RateLimiter_Acquire'.
#include <memory>

#include "guard_bench.h"
#include "stormguard/fleet/global_rate_limiter.h"

namespace stormguard::bench {
namespace {

std::unique_ptr<GlobalRateLimiter> g_global;

void BM_GlobalRateLimiter_Acquire(benchmark::State& state) {
  if (state.thread_index() == 0) {
    // One instance holding the whole lease (1e9/s, a two-second burst), so
    // no call in a run is refused: the success path, counting the demand.
    auto store = std::make_shared<InMemoryLeaseStore>(1e9, std::chrono::hours(1));
    g_global = GlobalRateLimiter::Create({.name = "bench",
                                          .instance_id = "bench",
                                          .limit = 1e9,
                                          .burst = 2'000'000'000,
                                          .refresh_interval = std::chrono::minutes(1),
                                          .lease_length = std::chrono::hours(1)},
                                         store)
                   .value();
    (void)g_global->RefreshOnce();
  }
  const TimePoint now = Clock::Real().Now();
  RunAdmittedCalls(state, [&] {
    if (!g_global->TryAcquire(now).ok()) return false;
    benchmark::DoNotOptimize(OpaqueSuccess());
    return true;
  });
}
BENCHMARK(BM_GlobalRateLimiter_Acquire);
BENCHMARK(BM_GlobalRateLimiter_Acquire)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
