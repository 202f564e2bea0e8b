// MetricsListener: what recording one event costs, and a scrape.
//
// BM_Metrics_Record_PipelineAttempt: one attempt's end through a bound
//   instance (the counter by outcome and the latency histogram).
// BM_Metrics_Scrape_1000: the text exposition of 1,000 instances, each with
//   attempts, latency, retries and a breaker state (issue 14: <= 5 ms).
// The whole pipeline with and without metrics: bench/pipeline_benchmark.cc.
#include <benchmark/benchmark.h>

#include <string>

#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

void BM_Metrics_Record_PipelineAttempt(benchmark::State& state) {
  static MetricsListener* const metrics = new MetricsListener;
  Listener& l = metrics->For("payments");
  const Event e{.kind = EventKind::kAttemptEnded, .policy = PolicyId::kPipeline, .duration = 300us};
  for (auto _ : state) l.OnEvent(e);
}
BENCHMARK(BM_Metrics_Record_PipelineAttempt);
BENCHMARK(BM_Metrics_Record_PipelineAttempt)->Threads(2);

void BM_Metrics_Scrape_1000(benchmark::State& state) {
  (void)CircuitBreaker::Create({});  // registers the breaker's families, as a real breaker does
  MetricsListener metrics;
  for (int i = 0; i < 1000; ++i) {
    Listener& l = metrics.For("destination-" + std::to_string(i));
    l.OnEvent({.kind = EventKind::kAttemptEnded, .policy = PolicyId::kPipeline, .duration = 3ms});
    l.OnEvent({.kind = EventKind::kAttemptEnded,
               .policy = PolicyId::kPipeline,
               .outcome = OutcomeClass::kTransient,
               .duration = 40ms});
    l.OnEvent({.kind = EventKind::kAttemptEnded, .policy = PolicyId::kRetry, .attempt = 2});
    l.OnEvent({.kind = EventKind::kRetryScheduled, .policy = PolicyId::kRetry});
    l.OnEvent({.kind = EventKind::kStateChanged,
               .policy = PolicyId::kCircuitBreaker,
               .from_state = static_cast<std::uint8_t>(CircuitState::kClosed),
               .to_state = static_cast<std::uint8_t>(CircuitState::kOpen)});
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string text = metrics.Scrape();
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Metrics_Scrape_1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stormguard::bench
