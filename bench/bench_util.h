// bench/bench_util.h: the callee every benchmark wraps, and an allocation meter.
#pragma once

#include <benchmark/benchmark.h>

#include "alloc_counter.h"
#include "stormguard/core/status.h"

namespace stormguard::bench {

// A call that succeeds and that the optimizer cannot see through.
[[gnu::noinline]] inline int OpaqueSuccess() noexcept {
  int v = 1;
  benchmark::DoNotOptimize(v);
  return v;
}

// Reports allocs_per_call = heap allocations per iteration of this thread.
class AllocationMeter {
 public:
  explicit AllocationMeter(benchmark::State& state) : state_(state), start_(ThreadAllocations()) {}
  ~AllocationMeter() {
    const auto n = static_cast<double>(ThreadAllocations() - start_);
    // Per thread, then averaged over threads: a row with ->Threads(2) still
    // reads "allocations per call".
    state_.counters["allocs_per_call"] =
        benchmark::Counter(state_.iterations() ? n / static_cast<double>(state_.iterations()) : 0,
                           benchmark::Counter::kAvgThreads);
  }

 private:
  benchmark::State& state_;
  std::uint64_t start_;
};

}  // namespace stormguard::bench
