// Cost of the adaptive throttle around a call: the admission (a sum of the
// rolling window, one add to the thread's stripe) and the accept recorded
// after it. Compare with BM_Baseline_DirectCall.
#include <memory>

#include "guard_bench.h"
#include "stormguard/core/clock.h"
#include "stormguard/guard/adaptive_throttle.h"

namespace stormguard::bench {
namespace {

// One throttle per run, shared by that run's threads (made by thread 0
// before the timed loop, which every thread enters together).
std::shared_ptr<AdaptiveThrottle> g_throttle;

void BM_AdaptiveThrottle_AdmitRecord(benchmark::State& state) {
  if (state.thread_index() == 0) g_throttle = std::move(AdaptiveThrottle::Create({.seed = 1})).value();
  // Every call is accepted, so p stays 0 and nothing is refused: the
  // healthy path, which is what a throttle costs nearly all the time.
  const TimePoint now = Clock::Real().Now();
  RunAdmittedCalls(state, [&] {
    if (!g_throttle->Admit(now).ok()) return false;
    benchmark::DoNotOptimize(OpaqueSuccess());
    g_throttle->Record(now, OutcomeClass::kSuccess);
    return true;
  });
}
BENCHMARK(BM_AdaptiveThrottle_AdmitRecord);
BENCHMARK(BM_AdaptiveThrottle_AdmitRecord)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
