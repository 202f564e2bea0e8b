// The JSON configuration: reading a 100-destination config, as a reload
// does off the call path.
#include <benchmark/benchmark.h>

#include <string>

#include "bench_util.h"
#include "stormguard/config/config_json.h"

namespace stormguard::bench {
namespace {

// Destination i: a budget, a breaker, a bulkhead, five stages and three
// method entries; about 1.3 KB each.
std::string Destination(int i) {
  const std::string n = std::to_string(i);
  return R"("svc-)" + n + R"(": {
    "retry_budget": {"token_bucket": {"max_tokens": 10, "token_ratio": 0.1}},
    "circuit_breaker": {"failure_rate_threshold": 0.5, "slow_call_duration": "2s", "window_size": 100,
                        "minimum_number_of_calls": 20, "wait_in_open": "30s"},
    "bulkhead": {"max_concurrent": )" +
         std::to_string(10 + i) + R"(, "max_wait": "10ms"},
    "pipeline": {"stages": [
      {"fallback": {"skip_when_remaining_below": "20ms"}},
      {"timeout": {"timeout": "1s"}},
      {"retry": {"max_attempts": 3, "backoff": {"base": "100ms", "cap": "1s", "jitter": "full"},
                 "retry_on": ["transient", "overloaded"], "idempotent": true}},
      "circuit_breaker", "bulkhead",
      {"attempt_timeout": {"timeout": "300ms"}}]},
    "methods": {
      "GET /items/)" +
         n + R"(": {"timeout": "250ms"},
      "pkg.Svc)" +
         n + R"(/*": {"retry": {"max_attempts": 2, "retryable_status_codes": ["UNAVAILABLE"]}},
      "*": {"hedge": {"delay": "50ms", "max_hedged_attempts": 1, "idempotent": true}}}})";
}

std::string HundredDestinations() {
  std::string text = R"({"destinations": {)";
  for (int i = 0; i < 100; ++i) text += (i == 0 ? "" : ",") + Destination(i);
  return text + "}}";
}

void BM_Config_Parse(benchmark::State& state) {
  const std::string text = HundredDestinations();
  for (auto _ : state) {
    config::ParsedConfig parsed = config::ParseConfigText(text);
    if (!parsed.errors.empty()) state.SkipWithError(parsed.errors.front().c_str());
    benchmark::DoNotOptimize(parsed);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_Config_Parse)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace stormguard::bench
