// stormguard/sim/fleet_limit_scenario.h: one rate limit shared by a fleet,
// on virtual time, through the faults of its store.
//
// `instances` instances share `limit` calls per second through the
// library's own GlobalRateLimiter, each against an InMemoryLeaseStore (the
// same sharing rule and bookkeeping as the Redis script) behind a switch
// that makes it unreachable. Instance i wants (i + 1) parts of `demand`
// (1:2:...:n); calls arrive as a Poisson process at that rate, and each
// takes a token (TryTake) or is refused. Each instance refreshes its lease
// every `refresh_interval`, from a random phase. Five phases of `phase`
// each, in this order:
//   steady       the skewed demand, the store reachable;
//   shift        the demand reversed (n:...:2:1): the shares must follow;
//   store down   nobody reaches the store (Redis killed): leases run out,
//                then each instance spends its static share, limit / n;
//   back empty   the store answers again but has forgotten everyone (Redis
//                restarted without persistence);
//   partition    the first `partitioned` instances cannot reach it.
//
//   auto r = sim::RunFleetLimitScenario({});
//   r->phases[0].admitted_per_s;  // ~limit
//   r->phases[1].settled;         // how soon every share followed the shift
//
// Same options and seed, same result. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::sim {

struct FleetLimitScenarioOptions {
  double limit = 1000;   // calls per second for the whole fleet
  int instances = 8;     // sharing it
  double demand = 2000;  // calls per second the whole fleet wants, split 1:2:...:n
  int burst = 100;       // the fleet's burst, split like the limit
  Duration phase = std::chrono::seconds(10);
  Duration refresh_interval = std::chrono::seconds(1);
  Duration lease_length = std::chrono::seconds(5);
  int partitioned = 4;  // instances cut off from the store in the last phase
  // A share has followed once every instance's rate is within this fraction
  // of what it should be (FleetLimitPhase::expected), or within the noise of
  // a demand measured over one refresh interval (three standard deviations of
  // a Poisson count), or 1 call/s of it.
  double tolerance = 0.1;
  std::uint64_t seed = 1;

  std::vector<std::string> Validate() const;
};

struct FleetLimitPhase {
  std::string name;  // "steady", "shift", "store down", "back empty", "partition"
  // Calls the fleet admitted per second over the phase, and the lowest and
  // highest whole second of it.
  double admitted_per_s = 0;
  double min_per_s = 0;
  double max_per_s = 0;
  std::vector<double> demand;  // per instance, calls per second wanted
  // Per instance, the rate the design gives it in this phase: its fair
  // share of the limit among the instances that reach the store, or the
  // static share (limit / n) once it cannot.
  std::vector<double> expected;
  std::vector<double> admitted;  // per instance, calls per second admitted
  // From the phase's start until every instance's rate stayed near what it
  // should be for the rest of the phase (none: it never did).
  std::optional<Duration> settled;
  std::int64_t refresh_failures = 0;  // faults the limiters reported in the phase
  std::int64_t leases_expired = 0;
};

struct FleetLimitScenarioResult {
  FleetLimitScenarioOptions options;
  std::vector<FleetLimitPhase> phases;
  std::vector<double> admitted_timeline;  // the fleet's admitted calls in each second from the start
};

Result<FleetLimitScenarioResult> RunFleetLimitScenario(const FleetLimitScenarioOptions& options);

}  // namespace stormguard::sim
