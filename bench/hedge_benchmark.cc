// Hedging costs. Compare with BM_Baseline_DirectCall in the same run.
//   BM_Hedge_FastPrimary        the primary answers before the delay: what a
//                               hedged call pays when nothing is hedged
//                               (arm and cancel a timer, one stop_source)
//   BM_Hedge_TimerArmCancel     that timer alone: a callback timer on the
//                               executor's TimerService
//   BM_Executor_Submit          handing a task to a worker (allocates nothing)
//   BM_LatencyTracker_Record    the record path, with its coarse clock read
#include <benchmark/benchmark.h>

#include <atomic>

#include "bench_util.h"
#include "stormguard/hedge/hedge_driver.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

Executor& SharedExecutor() {
  static const std::shared_ptr<Executor> ex = Executor::Create({.threads = 2, .queue_capacity = 1024}).value();
  return *ex;
}

void BM_Hedge_FastPrimary(benchmark::State& state) {
  static const HedgePolicy policy =
      HedgePolicy::Create({.delay = 50ms, .max_hedged_attempts = 1, .idempotent = true}).value();
  Executor& ex = SharedExecutor();
  CallContext ctx;
  AllocationMeter allocs(state);
  for (auto _ : state) {
    Status s = ExecuteHedged(
        policy, ctx, [](CallContext&) { return OpaqueSuccess() == 1 ? Status::Ok() : Status::Internal("unreachable"); },
        ex);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_Hedge_FastPrimary);
BENCHMARK(BM_Hedge_FastPrimary)->Threads(2);

void BM_Hedge_TimerArmCancel(benchmark::State& state) {
  Executor& ex = SharedExecutor();
  Clock& clock = Clock::Real();
  AllocationMeter allocs(state);
  for (auto _ : state) {
    TimerHandle h = ex.timers().Schedule(
        clock.Now() + 50ms, [](void*) noexcept {}, nullptr);
    benchmark::DoNotOptimize(TimerService::TryCancel(h));
  }
}
BENCHMARK(BM_Hedge_TimerArmCancel);

void BM_Executor_Submit(benchmark::State& state) {
  Executor& ex = SharedExecutor();
  static std::atomic<std::uint64_t> ran{0};
  AllocationMeter allocs(state);
  for (auto _ : state) {
    while (!ex.TrySubmit([] { ran.fetch_add(1, std::memory_order_relaxed); })) {
    }
  }
}
BENCHMARK(BM_Executor_Submit);

void BM_LatencyTracker_Record(benchmark::State& state) {
  static const std::shared_ptr<LatencyTracker> tracker = LatencyTracker::Create({}).value();
  Clock& clock = Clock::Real();
  std::int64_t latency = 1'000'000 + state.thread_index() * 7919;
  AllocationMeter allocs(state);
  for (auto _ : state) {
    tracker->Record(Duration(latency), clock.CoarseNow());
    latency = 1'000'000 + (latency * 31 + 17) % 50'000'000;  // spread over buckets
  }
}
BENCHMARK(BM_LatencyTracker_Record);
BENCHMARK(BM_LatencyTracker_Record)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
