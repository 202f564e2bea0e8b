// tools/simulate_report.h: what `stormguard simulate` prints for each scenario.
//
// Each scenario's library result becomes a Report: a readable table, one
// JSON object with the same numbers, and a plot for --svg. The simulation
// itself lives in sim/; nothing here computes a result, it only formats.
//
//   Report r = StormReport(*sim::RunStorm(options), /*series=*/false);
//   std::cout << r.table;
//
// Thread safety: plain functions over values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "render/svg_plot.h"
#include "stormguard/sim/adaptive_timeout_scenario.h"
#include "stormguard/sim/budget_scenario.h"
#include "stormguard/sim/chain_scenario.h"
#include "stormguard/sim/contention.h"
#include "stormguard/sim/deadline_demo.h"
#include "stormguard/sim/fleet_limit_scenario.h"
#include "stormguard/sim/fleet_scenario.h"
#include "stormguard/sim/hedge_scenario.h"
#include "stormguard/sim/metastable.h"
#include "stormguard/sim/storm.h"
#include "stormguard/sim/throttle_scenario.h"

namespace stormguard::cli {

struct Report {
  std::string table;
  nlohmann::ordered_json json;
  render::Plot plot;
};

// `series` adds the per-bucket counts to the table and the JSON.
Report StormReport(const sim::StormResult& r, bool series);
Report DeadlineReport(const sim::DeadlineResult& r, bool series);
Report BudgetReport(const sim::BudgetScenarioResult& r, bool series);
Report ContentionReport(const sim::ContentionResult& r, bool series);
Report ChainReport(const sim::ChainScenarioResult& r, bool series);
Report MetastableReport(const sim::MetastableResult& r, bool series);
Report AdaptiveTimeoutReport(const sim::AdaptiveTimeoutScenarioResult& r, bool series);
Report FleetReport(const sim::FleetScenarioResult& r, bool series);
Report FleetLimitReport(const sim::FleetLimitScenarioResult& r, bool series);
Report ThrottleReport(const sim::ThrottleScenarioResult& r, bool series);
Report HedgeReport(const sim::HedgeScenarioResult& r, bool series);

}  // namespace stormguard::cli
