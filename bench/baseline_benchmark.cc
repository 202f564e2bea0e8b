// The bare call every other benchmark is compared with, in the same run.
#include <benchmark/benchmark.h>

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

}  // namespace
}  // namespace stormguard::bench
