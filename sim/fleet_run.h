// sim/fleet_run.h (private to the simulator): one run of the fleet
// scenario, one picker with or without ejection, on its own engine.
#pragma once

#include <functional>
#include <vector>

#include "stormguard/hedge/hedge_policy.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/sim/fleet_scenario.h"

namespace stormguard::sim::fleet_internal {

struct RunSpec {
  PickerKind picker = PickerKind::kRandom;
  bool ejection = false;
  const std::vector<bool>* gray = nullptr;  // per replica
  const RetryPolicy* retry = nullptr;
  const HedgePolicy* hedge = nullptr;    // null: no hedging
  std::function<void(double)> progress;  // fraction of this run done
};

Result<FleetRun> RunFleet(const FleetScenarioOptions& o, const RunSpec& spec);

}  // namespace stormguard::sim::fleet_internal
