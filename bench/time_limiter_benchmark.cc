// The detached timeout's cost when the work returns at once. Compare with
// BM_Baseline_DirectCall in the same run.
//   BM_TimeLimiter_Success  one Run: the call's state and its stop_source
//                           (two allocations), its deadline armed and
//                           disarmed on the timer service, a hand-off to an
//                           executor worker and a wake back
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "stormguard/guard/time_limiter.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

void BM_TimeLimiter_Success(benchmark::State& state) {
  static const std::shared_ptr<Executor> ex = Executor::Create({.threads = 2}).value();
  static const std::shared_ptr<TimeLimiter> limiter =
      TimeLimiter::Create({.timeout = 1s, .max_detached = 16}, *ex).value();
  CallContext ctx;
  AllocationMeter allocs(state);
  for (auto _ : state) {
    Status s = limiter->Run(ctx, [](CallContext&) {
      return OpaqueSuccess() == 1 ? Status::Ok() : Status::Internal("unreachable");
    });
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_TimeLimiter_Success);

}  // namespace
}  // namespace stormguard::bench
