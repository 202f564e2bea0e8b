// stormguard/sim/hedge_scenario.h: The Tail at Scale (Dean & Barroso, CACM
// 2013) replayed with the library's own HedgePolicy and LatencyTracker.
//
// `requests` fan-out requests arrive (Poisson, `rate` a second); each asks
// `leaves` leaves at once and answers when a `wait_for` share of them has
// answered (1: all of them). A leaf's answer time is drawn from `latency`.
// Three runs see the same arrivals and the same first answers:
//
//   off      no hedging
//   fixed    a hedge when a leaf has not answered after `delay`
//   live     a hedge after the `quantile` of the latencies a LatencyTracker
//            saw (window 10 s; `delay` until it holds 20 samples)
//
// A hedge is a second, independent draw; the leaf answers at
// min(first, hedge sent + hedge). Hedges draw on a RatioBudget allowing
// `max_extra_load` hedges per leaf request (Finagle's retry budget); extra
// load = hedges sent / leaf requests. Each run reports p50/p95/p99/p99.9 of
// the leaf and of the fan-out latency.
//
//   auto r = sim::RunHedgeScenario({.leaves = 100});
//   r->runs[2].fan_out.p999;   // far below runs[0]'s
//
// Deterministic: a seed fixes every number. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"
#include "stormguard/sim/latency_mixture.h"

namespace stormguard::sim {

enum class HedgeMode { kOff, kFixed, kLive };

// "off", "fixed", "live".
std::string_view HedgeModeName(HedgeMode m) noexcept;

// Leaf requests one run may make (each is kept until the run's quantiles).
inline constexpr double kMaxHedgeLeafRequests = 4'000'000;

struct HedgeScenarioOptions {
  LatencyMixture latency = LatencyMixture::TailAtScale();
  int leaves = 100;
  double wait_for = 1.0;  // share of the leaves a fan-out waits for, in (0, 1]
  std::int64_t requests = 20'000;
  double rate = 1000;                              // fan-out requests a second
  Duration delay = std::chrono::milliseconds(10);  // the fixed run's hedge delay
  double quantile = 0.95;                          // the live run's, in (0, 1)
  double max_extra_load = 0.1;                     // hedges per leaf request the budget allows
  std::uint64_t seed = 1;

  std::vector<std::string> Validate() const;
};

// Nearest-rank percentiles.
struct LatencyQuantiles {
  Duration p50{}, p95{}, p99{}, p999{};
};

struct HedgeRun {
  HedgeMode mode = HedgeMode::kOff;
  Duration last_delay{};             // the hedge delay in force at the end (off: zero)
  std::int64_t leaf_requests = 0;    // first requests to leaves
  std::int64_t hedges = 0;           // second requests sent
  std::int64_t hedge_wins = 0;       // of those, answered first
  std::int64_t budget_refusals = 0;  // hedges the budget held back
  LatencyQuantiles leaf;
  LatencyQuantiles fan_out;

  double extra_load() const noexcept {
    return leaf_requests == 0 ? 0.0 : static_cast<double>(hedges) / static_cast<double>(leaf_requests);
  }
};

struct HedgeScenarioResult {
  HedgeScenarioOptions options;
  int waited_leaves = 0;       // ceil(wait_for x leaves)
  std::vector<HedgeRun> runs;  // off, fixed, live
};

Result<HedgeScenarioResult> RunHedgeScenario(const HedgeScenarioOptions& options);

}  // namespace stormguard::sim
