// The cost of asking a Backoff for the next wait (paid once per retry, never
// on the success path). Compare with BM_Baseline_DirectCall in the same run.
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "stormguard/backoff/backoff.h"

namespace stormguard::bench {
namespace {

void RunNext(benchmark::State& state, Jitter jitter) {
  const Backoff backoff = Backoff::Create({.jitter = jitter}).value();
  Random rng(1);
  Duration previous = Duration::zero();
  int retry = 0;
  AllocationMeter allocs(state);
  for (auto _ : state) {
    retry = retry % 16 + 1;  // walk retries 1..16, past the 30s cap
    previous = backoff.Next(retry, previous, rng);
    benchmark::DoNotOptimize(previous);
  }
}

void BM_Backoff_Next_Exponential(benchmark::State& state) { RunNext(state, Jitter::kNone); }
void BM_Backoff_Next_FullJitter(benchmark::State& state) { RunNext(state, Jitter::kFull); }
void BM_Backoff_Next_Decorrelated(benchmark::State& state) { RunNext(state, Jitter::kDecorrelated); }
BENCHMARK(BM_Backoff_Next_Exponential);
BENCHMARK(BM_Backoff_Next_FullJitter);
BENCHMARK(BM_Backoff_Next_Decorrelated);

}  // namespace
}  // namespace stormguard::bench
