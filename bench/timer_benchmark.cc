// Arming and disarming one call's deadline on the shared timer service: what
// every call with a timeout pays when it finishes in time (target <= 50 ns).
#include <benchmark/benchmark.h>

#include <stop_token>

#include "bench_util.h"
#include "stormguard/exec/timer_service.h"

namespace stormguard::bench {
namespace {

void BM_Timer_ScheduleCancel(benchmark::State& state) {
  TimerService& timers = TimerService::Default();
  std::stop_source stop;
  const TimePoint deadline = Clock::Real().Now() + std::chrono::hours(1);
  AllocationMeter allocs(state);
  for (auto _ : state) {
    TimerHandle h = timers.Schedule(deadline, stop);
    benchmark::DoNotOptimize(h);
    benchmark::DoNotOptimize(TimerService::Cancel(h));
  }
}
BENCHMARK(BM_Timer_ScheduleCancel);
BENCHMARK(BM_Timer_ScheduleCancel)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
