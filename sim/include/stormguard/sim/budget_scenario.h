// stormguard/sim/budget_scenario.h: a token-bucket
// retry budget meeting a 50% failure rate.
//
// Requests come in at `rate` per second, evenly spaced (the entry is
// behind a rate limiter), through one retrying layer (one retry each by
// default, the usual arithmetic: every failed request wants a retry) to a
// service that fails `failure_rate` of its calls. The layer's
// token bucket starts with `max_tokens`, earns `token_ratio` per success and
// spends one per retry. At 1000 rps and 50% failures, 500 retries
// a second drain the 10 tokens against 50 earned, so they are gone in about
// 20 ms; after that the retry rate is pinned by the success rate (about
// token_ratio retries per success) instead of by the configured count.
//
//   auto r = sim::RunBudgetScenario({});
//   r->exhausted_after;            // ~20 ms
//   r->retries_per_request_after;  // ~0.05
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/sim/series.h"

namespace stormguard::sim {

struct BudgetScenarioOptions {
  double rate = 1000;
  double failure_rate = 0.5;
  double max_tokens = 10;
  double token_ratio = 0.1;
  Duration duration = std::chrono::seconds(10);
  int retries = 1;
  Duration latency = std::chrono::milliseconds(1);  // the service's answer time
  Duration bucket = std::chrono::milliseconds(100);
  std::uint64_t seed = 1;

  std::vector<std::string> Validate() const;
};

struct BudgetScenarioResult {
  BudgetScenarioOptions options;
  std::optional<Duration> exhausted_after;  // the first retry the bucket refused
  // Retries the bucket granted per request arriving, before that moment
  // and after it.
  double retries_per_request_before = 0;
  double retries_per_request_after = 0;
  std::int64_t offered = 0;
  std::int64_t retries = 0;
  std::int64_t refused = 0;
  double success_rate = 0;
  Series series;  // retries[0]: retries sent; rejections: retries refused
};

Result<BudgetScenarioResult> RunBudgetScenario(const BudgetScenarioOptions& options);

}  // namespace stormguard::sim
