#include "stormguard/sim/storm.h"

#include "stormguard/core/validation.h"
#include "stormguard/sim/chain.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {

std::vector<std::string> StormOptions::Validate() const {
  Validator v;
  v.Check(clients >= 1, "clients", "must be at least 1");
  v.Check(retries >= 0, "retries", "must not be negative");
  v.Check(retries < kMaxRetryAttempts, "retries", "must be at most " + std::to_string(kMaxRetryAttempts - 1));
  v.Check(base > Duration::zero(), "base", "must be positive");
  v.Check(cap >= base, "cap", "must be at least base");
  v.Check(bucket > Duration::zero(), "bucket", "must be positive");
  v.Check(!strategies.empty(), "strategies", "must name at least one strategy");
  // All clients are in flight at once, each with its attempt; every wait is
  // at most cap, and the service answers at once.
  const std::string who = std::to_string(clients) + " clients";
  CheckLimit(v, "clients", 2.0 * clients, kMaxLiveCalls, who + " failing at once", "calls in flight");
  CheckLimit(v, "clients", static_cast<double>(clients) * (retries + 1.0) * static_cast<double>(strategies.size()),
             kMaxAttempts,
             who + " x " + std::to_string(retries + 1) + " attempts x " + std::to_string(strategies.size()) +
                 " strategies",
             "attempts");
  // Per strategy: arrivals at both nodes, retries, and four outcome series.
  CheckBuckets(v, retries * Seconds(cap), bucket, 7.0 * static_cast<double>(strategies.size()));
  return std::move(v).errors();
}

namespace {

// The callers (node 0) retry against a service (node 1) that answers every
// call at once with UNAVAILABLE.
ChainSpec StormChain(const StormOptions& o, Strategy s) {
  ChainSpec spec;
  spec.services = {{.name = "clients"}, {.name = "service", .error_rate = 1.0}};
  spec.hops = {
      {.retry = {.max_attempts = o.retries + 1, .backoff = StrategyBackoff(s, o.base, o.cap), .idempotent = true}}};
  spec.load = {.burst = o.clients};
  spec.bucket = o.bucket;
  spec.seed = o.seed;
  return spec;
}

}  // namespace

Result<StormResult> RunStorm(const StormOptions& options) {
  Status s = ValidationStatus("storm options", options.Validate());
  if (!s.ok()) return s;
  StormResult out{.options = options, .rows = {}};
  for (Strategy strategy : options.strategies) {
    Result<ChainResult> r = RunChain(StormChain(options, strategy));
    if (!r.ok()) return std::move(r).status();
    const HopStats& hop = r->hops[0];
    Counts per_bucket = r->series.retries[0];
    out.rows.push_back(StormRow{.strategy = strategy,
                                .total_retries = hop.retries,
                                .peak_per_bucket = Peak(per_bucket),
                                .last_retry = hop.last_retry,
                                .retries_per_bucket = std::move(per_bucket),
                                .events = r->events});
  }
  return out;
}

}  // namespace stormguard::sim
