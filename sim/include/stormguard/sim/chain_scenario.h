// stormguard/sim/chain_scenario.h: retries multiplying per layer, and the
// controls, on a chain whose bottom is down.
//
// Clients send `rate` requests per second for `duration` to layer 1; every
// layer calls the next with `retries` retries; the bottom service fails
// every call (`failure` error: at once, UNAVAILABLE; hang: never answers, so
// every layer waits for its per-attempt timeout). With no control the bottom
// sees exactly (1 + retries)^layers attempts per request (1, 3, 9, 27, 64:
// docs/retry-amplification.md). The controls (controls.h) bring it down:
// no-retry to 1 + retries (but not for hangs: a caller's timeout fires
// before the marker arrives), retry-flag to 1 + retries * layers, the gate
// and the budget to about one.
//
//   auto r = sim::RunChainScenario({.layers = 3, .retries = 2,
//                                   .controls = {sim::Control::kNone}});
//   r->rows[0].amplification;   // 27
//
// Each control runs with the same seed. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/sim/chain.h"
#include "stormguard/sim/controls.h"

namespace stormguard::sim {

enum class Failure { kError, kHang };
std::string_view FailureName(Failure f) noexcept;

struct ChainScenarioOptions {
  int layers = 3;
  int retries = 2;
  Failure failure = Failure::kError;
  std::vector<Control> controls{Control::kNone};
  double rate = 1000;
  Duration duration = std::chrono::seconds(30);
  double failure_rate = 1.0;                        // share of bottom calls that fail (1: down the whole run)
  Duration timeout = std::chrono::seconds(1);       // per attempt, at every layer
  Duration deadline = std::chrono::seconds(5);      // the clients' budget, sent down with deadlines on
  Duration latency = std::chrono::milliseconds(1);  // the bottom's time to fail (or succeed)
  Duration bucket = std::chrono::seconds(1);
  std::uint64_t seed = 1;
  std::function<void(double)> progress;  // 0..1 over all the controls' runs

  std::vector<std::string> Validate() const;
};

struct LayerRow {
  std::string name;  // "1", "2", ... "bottom"
  std::int64_t arrivals = 0;
  std::int64_t retries = 0;  // sent by this layer (none for the bottom)
  std::int64_t budget_refused = 0;
  std::int64_t breaker_refused = 0;
  std::int64_t timeouts = 0;
  double load = 0;  // arrivals / offered
};

struct ChainRun {
  Control control = Control::kNone;
  std::int64_t offered = 0;
  std::int64_t bottom_attempts = 0;
  double amplification = 0;  // bottom attempts / offered
  double success_rate = 0;
  std::vector<LayerRow> layers;
  Series series;
  std::uint64_t events = 0;
};

struct ChainScenarioResult {
  ChainScenarioOptions options;
  std::vector<ChainRun> runs;  // one per control, in the order asked
};

Result<ChainScenarioResult> RunChainScenario(const ChainScenarioOptions& options);

// (1 + retries)^layers: what every layer retrying on its own gives.
double UncontrolledAmplification(int layers, int retries) noexcept;

}  // namespace stormguard::sim
