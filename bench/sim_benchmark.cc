// The simulator's own speed: virtual events per second of real time for a
// three-layer chain whose bottom is down (every layer retries twice, so
// each client request is 39 attempts). Arg: seconds of traffic at 1000/s.
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "stormguard/sim/chain.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

sim::ChainSpec ThreeLayerStorm(Duration duration) {
  sim::ChainSpec spec;
  for (int i = 0; i < 3; ++i) {
    spec.services.push_back({.name = "layer"});
    spec.hops.push_back(
        {.retry = {.max_attempts = 3,
                   .backoff = {.kind = BackoffKind::kExponential, .base = 10ms, .cap = 1s, .jitter = Jitter::kFull},
                   .per_attempt_timeout = 1s,
                   .idempotent = true,
                   .retry_when_serving_a_retry = true}});
  }
  spec.services.push_back({.name = "bottom", .latency = sim::Latency::Fixed(1ms), .error_rate = 1.0});
  spec.load = {.rate = 1000, .duration = duration};
  return spec;
}

void BM_Sim_Chain(benchmark::State& state) {
  const sim::ChainSpec spec = ThreeLayerStorm(std::chrono::seconds(state.range(0)));
  std::uint64_t events = 0;
  std::int64_t requests = 0;
  for (auto _ : state) {
    auto r = sim::RunChain(spec);
    events += r->events;
    requests += r->offered;
    benchmark::DoNotOptimize(r);
  }
  state.counters["events_per_second"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  // Client requests (each fanning out to 40 attempts) simulated per second.
  state.counters["requests_per_second"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sim_Chain)->Arg(10)->Unit(benchmark::kMillisecond);
// 1000 s at 1000 requests/s: the million-request run, once.
BENCHMARK(BM_Sim_Chain)->Arg(1000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace stormguard::bench
