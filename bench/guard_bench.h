// bench/guard_bench.h: the timed loop shared by the guard benchmarks
// (rate limiter, bulkhead, adaptive limiter).
#pragma once

#include <cstdint>

#include "bench_util.h"

namespace stormguard::bench {

// Runs `call` once per iteration under an AllocationMeter. `call` returns
// false when the guard refused; any refusal fails the run, because these
// benchmarks measure the path of an admitted call.
template <class Call>
void RunAdmittedCalls(benchmark::State& state, Call call) {
  std::int64_t refused = 0;
  {
    AllocationMeter allocs(state);
    for (auto _ : state) {
      if (!call()) ++refused;
    }
  }
  if (refused > 0) state.SkipWithError("the guard refused calls: the benchmark is misconfigured");
}

}  // namespace stormguard::bench
