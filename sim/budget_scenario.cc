#include "stormguard/sim/budget_scenario.h"

#include "stormguard/core/validation.h"
#include "stormguard/sim/budget_stack.h"
#include "stormguard/sim/chain.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {
namespace {
constexpr Duration kMaxWait = std::chrono::seconds(1);  // the layer's backoff cap
}  // namespace

std::vector<std::string> BudgetScenarioOptions::Validate() const {
  Validator v;
  v.Check(rate > 0, "rate", "must be positive");
  v.Check(failure_rate >= 0 && failure_rate <= 1, "failure_rate", "must be in [0, 1]");
  v.Check(duration > Duration::zero(), "duration", "must be positive");
  v.Check(retries >= 0 && retries <= 100, "retries", "must be in [0, 100]");
  v.Check(latency >= Duration::zero(), "latency", "must not be negative");
  v.Check(bucket > Duration::zero(), "bucket", "must be positive");
  if (!v.errors().empty()) return std::move(v).errors();  // the estimates need sane values
  // Requests arrive evenly spaced; each lives through at most 1 + retries
  // answers and retries waits, as a client call plus its attempt.
  const double offered = rate * Seconds(duration) + 1;
  const double life = LoopSeconds(retries, latency, kMaxWait);
  CheckLimit(v, "duration", offered * (retries + 1), kMaxAttempts,
             Estimate(Seconds(duration)) + "s at " + Estimate(rate) + " requests/s, up to " +
                 std::to_string(retries + 1) + " attempts each,",
             "attempts");
  CheckLimit(v, "rate", 2 * (rate * life + 1), kMaxLiveCalls,
             Estimate(rate) + " requests/s, each in flight for up to " + Estimate(life) + "s,", "calls in flight");
  CheckBuckets(v, Seconds(duration) + life, bucket, 7);  // two nodes, one hop, four outcomes
  return std::move(v).errors();
}

Result<BudgetScenarioResult> RunBudgetScenario(const BudgetScenarioOptions& o) {
  Status s = ValidationStatus("budget options", o.Validate());
  if (!s.ok()) return s;
  Result<std::shared_ptr<RetryBudget>> bucket =
      MakeBudgetStack({.token_bucket = true, .max_tokens = o.max_tokens, .token_ratio = o.token_ratio});
  if (!bucket.ok()) return std::move(bucket).status();
  ChainSpec spec;
  spec.services = {{.name = "clients"},
                   {.name = "service", .latency = Latency::Fixed(o.latency), .error_rate = o.failure_rate}};
  spec.hops = {{.retry = {.max_attempts = o.retries + 1,
                          .backoff = {.kind = BackoffKind::kExponential,
                                      .base = std::chrono::milliseconds(10),
                                      .cap = kMaxWait,
                                      .jitter = Jitter::kFull},
                          .idempotent = true,
                          .budget = std::move(bucket).value()}}};
  spec.load = {.rate = o.rate, .duration = o.duration, .evenly_spaced = true};
  spec.bucket = o.bucket;
  spec.seed = o.seed;
  Result<ChainResult> r = RunChain(spec);
  if (!r.ok()) return std::move(r).status();

  const HopStats& hop = r->hops[0];
  BudgetScenarioResult out{.options = o,
                           .exhausted_after = hop.first_budget_refusal,
                           .offered = r->offered,
                           .retries = hop.retries,
                           .refused = hop.budget_refused,
                           .success_rate = r->success_rate(),
                           .series = r->series};
  const auto per_request = [](std::int64_t retries, std::int64_t requests) {
    return requests == 0 ? 0.0 : static_cast<double>(retries) / static_cast<double>(requests);
  };
  if (hop.first_budget_refusal) {
    out.retries_per_request_before = per_request(hop.granted_before_refusal, hop.offered_before_refusal);
    out.retries_per_request_after =
        per_request(hop.retries_granted - hop.granted_before_refusal, r->offered - hop.offered_before_refusal);
  } else {
    out.retries_per_request_before = per_request(hop.retries_granted, r->offered);
  }
  return out;
}

}  // namespace stormguard::sim
