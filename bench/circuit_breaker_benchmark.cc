// Circuit breaker cost per call: permission + the call + recording its result.
//
// `now` is handed in, as a pipeline does after reading its clock once per
// call, so the rows measure the breaker and not the clock. Each breaker is
// shared by every thread of a row, as one breaker guards one dependency.
#include <benchmark/benchmark.h>

#include <memory>

#include "bench_util.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

const TimePoint kStart = TimePoint(1h);

CircuitBreaker& Make(CircuitBreakerOptions options) {
  // Leaked on purpose: lives for the whole run, shared by the rows' threads.
  return **new std::shared_ptr<CircuitBreaker>(CircuitBreaker::Create(std::move(options)).value());
}

void CallThrough(CircuitBreaker& cb, TimePoint now, OutcomeClass outcome) {
  if (cb.TryAcquirePermission(now)) {
    benchmark::DoNotOptimize(OpaqueSuccess());
    cb.OnResult(outcome, 1ms, now);
  }
}

// Closed, every call succeeds, count window of 100 (the default config).
void BM_CircuitBreaker_Success(benchmark::State& state) {
  static CircuitBreaker& cb = Make({});
  AllocationMeter allocs(state);
  for (auto _ : state) CallThrough(cb, kStart, OutcomeClass::kSuccess);
}
BENCHMARK(BM_CircuitBreaker_Success);
BENCHMARK(BM_CircuitBreaker_Success)->Threads(2);

// Closed, one call in 16 fails (6%, under the 50% threshold): every call
// writes the ring, so this is the count window's worst steady state.
void BM_CircuitBreaker_MixedOutcomes(benchmark::State& state) {
  static CircuitBreaker& cb = Make({});
  AllocationMeter allocs(state);
  unsigned i = 0;
  for (auto _ : state) {
    CallThrough(cb, kStart, (++i & 15) == 0 ? OutcomeClass::kTransient : OutcomeClass::kSuccess);
  }
}
BENCHMARK(BM_CircuitBreaker_MixedOutcomes);
BENCHMARK(BM_CircuitBreaker_MixedOutcomes)->Threads(2);

// Closed, successes, a 10 s time window; time moves 1 us per call, so a new
// second (and a bucket rotation) comes every million calls.
void BM_CircuitBreaker_Success_TimeWindow(benchmark::State& state) {
  static CircuitBreaker& cb = Make({.window_kind = WindowKind::kTimeBased, .window_size = 10});
  AllocationMeter allocs(state);
  TimePoint now = kStart;
  for (auto _ : state) {
    now += 1us;
    CallThrough(cb, now, OutcomeClass::kSuccess);
  }
}
BENCHMARK(BM_CircuitBreaker_Success_TimeWindow);
BENCHMARK(BM_CircuitBreaker_Success_TimeWindow)->Threads(2);

// The Status-returning permission (what a pipeline that reports the refusing
// policy calls) on the success path.
void BM_CircuitBreaker_AcquireStatus(benchmark::State& state) {
  static CircuitBreaker& cb = Make({});
  AllocationMeter allocs(state);
  for (auto _ : state) {
    Status s = cb.Acquire(kStart);
    if (s.ok()) {
      benchmark::DoNotOptimize(OpaqueSuccess());
      cb.OnResult(OutcomeClass::kSuccess, 1ms, kStart);
    }
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_CircuitBreaker_AcquireStatus);

// Forced open, no listener: the cost of saying no.
void BM_CircuitBreaker_Rejected(benchmark::State& state) {
  static CircuitBreaker& cb = []() -> CircuitBreaker& {
    CircuitBreaker& b = Make({});
    b.TransitionToForcedOpen(kStart);
    return b;
  }();
  AllocationMeter allocs(state);
  for (auto _ : state) benchmark::DoNotOptimize(cb.TryAcquirePermission(kStart));
}
BENCHMARK(BM_CircuitBreaker_Rejected);
BENCHMARK(BM_CircuitBreaker_Rejected)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
