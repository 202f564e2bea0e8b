// The bare call every other benchmark is compared with, in the same run, and
// one read of the monotonic clock: a pipeline's cost is best read in clock
// reads (BM_Pipeline_Success / BM_Baseline_ClockNow), which compares across
// machines where nanoseconds do not.
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench_util.h"

namespace stormguard::bench {
namespace {

void BM_Baseline_DirectCall(benchmark::State& state) {
  AllocationMeter allocs(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(OpaqueSuccess());
  }
}
BENCHMARK(BM_Baseline_DirectCall);
BENCHMARK(BM_Baseline_DirectCall)->Threads(2);

void BM_Baseline_ClockNow(benchmark::State& state) {
  AllocationMeter allocs(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::chrono::steady_clock::now());
  }
}
BENCHMARK(BM_Baseline_ClockNow);

}  // namespace
}  // namespace stormguard::bench
