// stormguard/sim/throttle_scenario.h: client-side adaptive throttling
// against a backend that refuses most of what it is offered.
//
// `clients` clients send `rate` requests a second together (Poisson, each
// request to a client drawn at random) for `duration` of virtual time. The
// backend has room for (1 - reject_share) of that offered rate, spread over
// 100 ms slices; it refuses the rest with RESOURCE_EXHAUSTED (a 429), so at
// the offered rate it refuses reject_share (90% by default). Each client
// calls it through its own pipeline of the library's stages, one run per
// strategy:
//
//   naive      retry up to max_attempts at once, nothing else
//   budget     the same retry, spending a token-bucket retry budget
//              (10 tokens, 0.1 per success) per client
//   throttle   the same retry, and inside it an AdaptiveThrottle per client
//              (window 2 min, min_requests 20), once per k in `ks`
//
// Per run: the attempts the backend received and accepted, and their
// ratio; the throttle's local refusals. With the throttle the backend
// receives about k x what it accepts; with naive retries several times more.
//
//   auto r = sim::RunThrottleScenario({});
//   r->runs[2].received_per_accepted();   // ~2 (k = 2)
//
// Deterministic: a seed fixes every run. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::sim {

enum class ThrottleStrategy { kNaive, kBudget, kThrottle };

// "naive", "budget", "throttle".
std::string_view ThrottleStrategyName(ThrottleStrategy s) noexcept;

struct ThrottleScenarioOptions {
  int clients = 10;
  double rate = 1000;         // requests a second, all clients together
  double reject_share = 0.9;  // of the offered rate, beyond the backend's room
  Duration duration = std::chrono::minutes(5);
  int max_attempts = 3;
  std::vector<double> ks = {2.0, 1.1};
  std::uint64_t seed = 1;

  std::vector<std::string> Validate() const;
};

struct ThrottleRun {
  ThrottleStrategy strategy = ThrottleStrategy::kNaive;
  double k = 0;                    // the throttle's, else 0
  std::int64_t requests = 0;       // the clients' calls
  std::int64_t succeeded = 0;      // calls that ended accepted
  std::int64_t received = 0;       // attempts the backend got
  std::int64_t accepted = 0;       // of those, accepted
  std::int64_t refused_local = 0;  // attempts the throttle refused before they left

  double received_per_accepted() const noexcept {
    return accepted == 0 ? 0.0 : static_cast<double>(received) / static_cast<double>(accepted);
  }
};

struct ThrottleScenarioResult {
  ThrottleScenarioOptions options;
  std::vector<ThrottleRun> runs;  // naive, budget, then one per k
};

Result<ThrottleScenarioResult> RunThrottleScenario(const ThrottleScenarioOptions& options);

}  // namespace stormguard::sim
