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

// The timed loop: admit, the call, its accept.
void AdmitAndRecord(benchmark::State& state, TimePoint now) {
  RunAdmittedCalls(state, [&] {
    if (!g_throttle->Admit(now).ok()) return false;
    benchmark::DoNotOptimize(OpaqueSuccess());
    g_throttle->Record(now, OutcomeClass::kSuccess);
    return true;
  });
}

void BM_AdaptiveThrottle_AdmitRecord(benchmark::State& state) {
  if (state.thread_index() == 0) g_throttle = std::move(AdaptiveThrottle::Create({.seed = 1})).value();
  // Every call is accepted, so p stays 0 and nothing is refused: the
  // healthy path, which is what a throttle costs nearly all the time.
  const TimePoint now = Clock::Real().Now();
  AdmitAndRecord(state, now);
}
BENCHMARK(BM_AdaptiveThrottle_AdmitRecord);
BENCHMARK(BM_AdaptiveThrottle_AdmitRecord)->Threads(2);

// The same calls while the window holds a refusal: every admission sums the
// window (every stripe's counters). The window is filled so that p stays 0
// (1000 requests, 500 accepts, k = 2) and every call is still admitted.
void BM_AdaptiveThrottle_AdmitRecordEngaged(benchmark::State& state) {
  const TimePoint now = Clock::Real().Now();
  if (state.thread_index() == 0) {
    g_throttle = std::move(AdaptiveThrottle::Create({.seed = 1})).value();
    for (int i = 0; i < 1000; ++i) (void)g_throttle->Admit(now);
    for (int i = 0; i < 500; ++i) g_throttle->Record(now, OutcomeClass::kSuccess);
    g_throttle->Record(now, OutcomeClass::kOverloaded);
  }
  AdmitAndRecord(state, now);
}
BENCHMARK(BM_AdaptiveThrottle_AdmitRecordEngaged);
BENCHMARK(BM_AdaptiveThrottle_AdmitRecordEngaged)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
