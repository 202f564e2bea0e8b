#include "stormguard/sim/fleet_scenario.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fleet_run.h"
#include "stormguard/core/validation.h"
#include "stormguard/fleet/replica_set.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {
namespace {

// Ejection sweeps look at every endpoint of a view once per interval.
constexpr double kMaxEndpointChecks = 500'000'000;

double Share(std::int64_t part, std::int64_t whole) noexcept {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Which replicas are gray: the same ones, drawn from the seed, in every run.
std::vector<bool> GrayReplicas(const FleetScenarioOptions& o) {
  std::vector<int> order(static_cast<std::size_t>(o.replicas));
  std::iota(order.begin(), order.end(), 0);
  Random rng(o.seed ^ 0x6772617973ULL);  // its own stream: the runs' engines draw from the seed itself
  std::vector<bool> gray(order.size(), false);
  for (std::size_t i = 0; i < static_cast<std::size_t>(o.gray_replicas()); ++i) {
    std::swap(order[i], order[i + rng.Below(order.size() - i)]);
    gray[static_cast<std::size_t>(order[i])] = true;
  }
  return gray;
}

void CheckShapes(Validator& v, const FleetScenarioOptions& o) {
  v.Check(!o.pickers.empty(), "pickers", "must name at least one picker");
  v.Check(!o.ejection.empty(), "ejection", "must say at least once whether ejection is on");
  v.Check(!o.hedge.empty(), "hedge", "must say at least once whether calls hedge");
  v.Check(o.clients >= 1 && o.clients <= 10'000'000, "clients", "must be in [1, 10000000]");
  v.Check(o.client_groups >= 1 && o.client_groups <= o.clients, "client_groups", "must be in [1, clients]");
  v.Check(o.replicas >= 1 && o.replicas <= static_cast<int>(kMaxEndpoints), "replicas",
          "must be in [1, " + std::to_string(kMaxEndpoints) + "]");
  v.Check(o.requests >= 1, "requests", "must be at least 1");
  v.Check(std::isfinite(o.rate) && o.rate > 0 && o.rate <= 1e7, "rate", "must be in (0, 1e7] requests/s");
  v.CheckRange(o.gray_fraction, "gray_fraction", Range{0.0, 1.0});
  v.CheckRange(o.gray_share, "gray_share", Range{0.0, 1.0});
  v.Check(o.gray_latency > Duration::zero(), "gray_latency", "must be positive");
  v.Check(o.latency > Duration::zero(), "latency", "must be positive");
  v.CheckRange(o.latency_sigma, "latency_sigma", Range{0.0, 3.0});
  v.Check(o.concurrency >= 1 && o.concurrency <= 100'000, "concurrency", "must be in [1, 100000]");
  v.Check(o.queue >= 0 && o.queue <= 1'000'000, "queue", "must be in [0, 1000000]");
  v.Check(o.deadline > Duration::zero(), "deadline", "must be positive");
  v.Check(o.attempt_timeout > Duration::zero(), "attempt_timeout", "must be positive");
  v.Check(o.max_attempts >= 1 && o.max_attempts <= static_cast<int>(Tried::kMax), "max_attempts",
          "must be in [1, " + std::to_string(Tried::kMax) + "] (the replicas a call remembers)");
  v.Nest("outlier", o.outlier.Validate());
  v.Nest("load", o.load.Validate());
}

// One hedge after the p95 of the answers of the last 10 s (The Tail at
// Scale), 1 ms at least, at most the attempt timeout; the delay is the
// attempt timeout until 100 answers are in.
Result<std::optional<HedgePolicy>> HedgeFor(const FleetScenarioOptions& o, bool on) {
  if (!on) return std::optional<HedgePolicy>();
  Result<std::shared_ptr<LatencyTracker>> latency = LatencyTracker::Create({.min_samples = 100});
  if (!latency.ok()) return std::move(latency).status();
  Result<HedgePolicy> policy = HedgePolicy::Create({.delay = o.attempt_timeout,
                                                    .max_hedged_attempts = 1,
                                                    .latency = std::move(latency).value(),
                                                    .quantile = 0.95,
                                                    .max_delay = o.attempt_timeout,
                                                    .idempotent = true});
  if (!policy.ok()) return std::move(policy).status();
  return std::optional<HedgePolicy>(std::move(policy).value());
}

}  // namespace

std::string_view GrayModeName(GrayMode m) noexcept { return m == GrayMode::kFail ? "fail" : "slow"; }

std::optional<GrayMode> ParseGrayMode(std::string_view name) noexcept {
  if (name == "slow") return GrayMode::kSlow;
  if (name == "fail") return GrayMode::kFail;
  return std::nullopt;
}

int FleetScenarioOptions::gray_replicas() const noexcept {
  return static_cast<int>(std::lround(gray_fraction * replicas));
}

std::vector<std::string> FleetScenarioOptions::Validate() const {
  Validator v;
  CheckShapes(v, *this);
  if (!v.errors().empty()) return std::move(v).errors();  // the estimates need sane values
  const double runs = static_cast<double>(pickers.size() * ejection.size() * hedge.size());
  const double n = static_cast<double>(requests);
  const bool hedging = std::find(hedge.begin(), hedge.end(), true) != hedge.end();
  const int per_request = max_attempts * (hedging ? 2 : 1);  // a hedge per attempt at most
  CheckLimit(v, "requests", n * per_request * runs, kMaxAttempts,
             Estimate(n) + " requests, up to " + std::to_string(per_request) + " attempts each, in " + Estimate(runs) +
                 " runs,",
             "attempts");
  CheckLimit(v, "rate", rate * Seconds(deadline) + 1, kMaxLiveCalls,
             Estimate(rate) + " requests/s, each in flight for up to " + Estimate(Seconds(deadline)) + "s,",
             "calls in flight");
  CheckLimit(v, "queue", (static_cast<double>(queue) + concurrency) * replicas, kMaxLiveCalls,
             std::to_string(replicas) + " replicas holding " + std::to_string(concurrency) + " + " +
                 std::to_string(queue) + " attempts each",
             "calls held");
  const double endpoints = static_cast<double>(client_groups) * replicas;
  CheckLimit(v, "client_groups", endpoints, kMaxFleetEndpoints,
             std::to_string(client_groups) + " client groups x " + std::to_string(replicas) + " replicas",
             "endpoint objects");
  const double sweeps = std::min(n * max_attempts, n / rate / Seconds(outlier.interval) + 1) * endpoints;
  const bool ejecting = std::find(ejection.begin(), ejection.end(), true) != ejection.end();
  if (ejecting) {
    CheckLimit(v, "outlier.interval", sweeps * runs, kMaxEndpointChecks,
               "sweeping " + Estimate(endpoints) + " endpoints every " + Estimate(Seconds(outlier.interval)) +
                   "s for " + Estimate(n / rate) + "s in " + Estimate(runs) + " runs",
               "endpoint checks");
  }
  return std::move(v).errors();
}

double FleetRun::success_rate() const noexcept { return Share(succeeded, requests); }
double FleetRun::attempts_per_request() const noexcept { return Share(attempts, requests); }
double FleetRun::per_healthy_replica() const noexcept { return Share(attempts - gray_attempts, healthy_replicas); }
double FleetRun::per_gray_replica() const noexcept { return Share(gray_attempts, gray_replicas); }
double FleetRun::gray_share() const noexcept { return Share(gray_attempts, attempts); }
double FleetRun::wasted_on_gray() const noexcept { return Share(gray_wasted, attempts); }

Result<FleetScenarioResult> RunFleetScenario(const FleetScenarioOptions& o) {
  if (Status s = ValidationStatus("fleet scenario options", o.Validate()); !s.ok()) return s;
  const OutcomeSet retry_on{OutcomeClass::kTransient, OutcomeClass::kOverloaded, OutcomeClass::kAmbiguous,
                            OutcomeClass::kDeadlineExceeded};
  Result<RetryPolicy> retry = RetryPolicy::Create({.max_attempts = o.max_attempts,
                                                   .backoff = {.kind = BackoffKind::kExponential,
                                                               .base = std::chrono::milliseconds(10),
                                                               .cap = std::chrono::milliseconds(100),
                                                               .jitter = Jitter::kFull},
                                                   .per_attempt_timeout = o.attempt_timeout,
                                                   .retry_on = retry_on,
                                                   .idempotent = true});
  if (!retry.ok()) return std::move(retry).status();
  const std::vector<bool> gray = GrayReplicas(o);
  FleetScenarioResult out{.options = o, .runs = {}};
  const double runs = static_cast<double>(o.pickers.size() * o.ejection.size() * o.hedge.size());
  for (PickerKind picker : o.pickers) {
    for (bool ejection : o.ejection) {
      for (bool hedge : o.hedge) {
        Result<std::optional<HedgePolicy>> hedging = HedgeFor(o, hedge);  // fresh latencies each run
        if (!hedging.ok()) return std::move(hedging).status();
        fleet_internal::RunSpec spec{.picker = picker,
                                     .ejection = ejection,
                                     .gray = &gray,
                                     .retry = &*retry,
                                     .hedge = hedging->has_value() ? &**hedging : nullptr};
        if (o.progress) {
          const double done = static_cast<double>(out.runs.size());
          spec.progress = [&o, done, runs](double f) { o.progress((done + f) / runs); };
        }
        Result<FleetRun> run = fleet_internal::RunFleet(o, spec);
        if (!run.ok()) return std::move(run).status();
        out.runs.push_back(std::move(run).value());
      }
    }
  }
  if (o.progress) o.progress(1.0);
  return out;
}

}  // namespace stormguard::sim
