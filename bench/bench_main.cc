// stormguard_bench: every component's benchmarks in one binary. Each
// benchmark that claims "zero allocations" reports an allocs_per_call counter.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
