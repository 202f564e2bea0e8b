// tools/plan/plan.h: what a call chain does when its bottom is down, worked
// out from its configurations and then checked in the simulator.
//
// Per service: the attempts reaching it per request at the top, computed
// three ways (no controls: every layer retries every failure; with the
// retry flag where a layer honours it; with the flag and the retry
// budgets, as a bound), and simulated with the very same retry options and
// budgets; the deadline it receives (each caller keeps its hop reserve);
// and the worst-case latency at the top when the bottom hangs.
//
// Cost: the computed figures are closed form, one pass over the chain. The
// simulation sends every attempt, so it is capped: at most
// kMaxSimulatedCalls calls in all, counted in advance from the computed
// attempts with the retry flag (what the simulator sends at most). A chain
// whose requests would need more is simulated over fewer requests; one
// whose single request would (14 services, each trying 3 times, make
// 2.4 million) is not simulated at all. Either is reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lint/lint_hop.h"

namespace stormguard::plan {

// A third of a second of the simulator's time (measured on a shared 2-core
// machine), a few times that under the sanitizers.
inline constexpr double kMaxSimulatedCalls = 1'000'000;

// The simulated run: evenly spaced requests against a bottom that fails
// every call at once.
struct PlanOptions {
  int requests = 1000;
  double rate = 100;  // requests per second
  std::uint64_t seed = 1;
  double max_calls = kMaxSimulatedCalls;  // arrivals at all services together
};

struct LayerPlan {
  std::string service;
  double uncontrolled = 0;                 // the worst case: every layer retries every failure
  double with_flag = 0;                    // the retry flag honoured where configured
  double expected = 0;                     // the flag and the budgets: an upper bound
  double simulated = 0;                    // arrivals per request in the simulator
  Duration time_left = kInfiniteDuration;  // the deadline it receives
};

enum class Simulation {
  kFull,     // the requests asked for
  kCapped,   // fewer requests, so the calls stay within max_calls
  kSkipped,  // one request alone would pass max_calls: `simulated` is 0 everywhere
};

struct Plan {
  std::string chain;
  std::vector<LayerPlan> layers;             // caller first
  Duration top_latency = kInfiniteDuration;  // the top's call when the bottom hangs
  Simulation simulation = Simulation::kFull;
  std::int64_t simulated_requests = 0;
  int requested = 0;             // the requests PlanOptions asked for
  double calls_per_request = 0;  // at all services, the retry flag honoured: the simulation's cost
  double max_calls = 0;          // PlanOptions::max_calls
};

// INVALID_ARGUMENT when a budget cannot be built or the simulation refuses the chain.
Result<Plan> MakePlan(const lint::Chain& chain, const std::vector<lint::Hop>& hops, const PlanOptions& options = {});

}  // namespace stormguard::plan
