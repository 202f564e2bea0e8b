// The report of `stormguard simulate fleet-limit`: per phase, what the fleet
// admitted against its limit and how soon the shares settled; per instance,
// demand, fair share and admitted in the phases the store answers.
#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"
#include "simulate_report.h"

namespace stormguard::cli {
namespace {

using namespace render;

std::string Settled(const sim::FleetLimitPhase& p) {
  return p.settled ? Fixed(Seconds(*p.settled), 1) + " s" : "never";
}

nlohmann::ordered_json PhaseJson(const sim::FleetLimitPhase& p) {
  nlohmann::ordered_json j;
  j["phase"] = p.name;
  j["admitted_per_s"] = Round(p.admitted_per_s, 1);
  j["min_per_s"] = p.min_per_s;
  j["max_per_s"] = p.max_per_s;
  j["settled_s"] = p.settled ? nlohmann::ordered_json(Round(Seconds(*p.settled), 3)) : nlohmann::ordered_json();
  j["refresh_failures"] = p.refresh_failures;
  j["leases_expired"] = p.leases_expired;
  for (std::size_t i = 0; i < p.demand.size(); ++i) {
    j["instances"].push_back({{"demand", Round(p.demand[i], 1)},
                              {"expected", Round(p.expected[i], 1)},
                              {"admitted", Round(p.admitted[i], 1)}});
  }
  return j;
}

// Demand, expected share and admitted rate per instance, one column group per phase.
std::string InstanceTable(const sim::FleetLimitScenarioResult& r) {
  std::vector<std::string> columns = {"instance"};
  for (const sim::FleetLimitPhase& p : r.phases) columns.push_back(p.name);
  TextTable table(columns);
  for (std::size_t i = 0; i < r.phases.front().demand.size(); ++i) {
    std::vector<std::string> row = {std::to_string(i)};
    for (const sim::FleetLimitPhase& p : r.phases) {
      row.push_back(Fixed(p.demand[i], 0) + " / " + Fixed(p.expected[i], 0) + " / " + Fixed(p.admitted[i], 0));
    }
    table.Row(row);
  }
  return "\nper instance, calls/s: wanted / its share by design / admitted\n" + table.Render();
}

}  // namespace

Report FleetLimitReport(const sim::FleetLimitScenarioResult& r, bool /*series*/) {
  const sim::FleetLimitScenarioOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.instances) + " instances share " + Fixed(o.limit, 0) + " calls/s and want " +
              Fixed(o.demand, 0) + "/s, split 1:2:...:" + std::to_string(o.instances) + "; a " +
              FormatDuration(o.lease_length) + " lease refreshed every " + FormatDuration(o.refresh_interval) +
              "; phases of " + FormatDuration(o.phase) + "; the partition cuts off " + std::to_string(o.partitioned) +
              "; seed " + std::to_string(o.seed) + "\n\n";
  TextTable table({"phase", "admitted/s", "of limit", "lowest second", "highest second", "shares settled after",
                   "refresh failures", "leases expired"});
  nlohmann::ordered_json phases = nlohmann::ordered_json::array();
  for (const sim::FleetLimitPhase& p : r.phases) {
    table.Row({p.name, Fixed(p.admitted_per_s, 1), Fixed(p.admitted_per_s / o.limit, 2) + "x", Fixed(p.min_per_s, 0),
               Fixed(p.max_per_s, 0), Settled(p), std::to_string(p.refresh_failures),
               std::to_string(p.leases_expired)});
    phases.push_back(PhaseJson(p));
  }
  out.table += table.Render() + InstanceTable(r);
  PlotLine admitted{.name = "admitted (calls/s)"}, limit{.name = "limit"};
  for (std::size_t s = 0; s < r.admitted_timeline.size(); ++s) {
    admitted.x.push_back(static_cast<double>(s) + 0.5);
    admitted.y.push_back(r.admitted_timeline[s]);
    out.json["admitted_timeline"].push_back(r.admitted_timeline[s]);
  }
  limit.x = {0, Seconds(o.phase * static_cast<Duration::rep>(r.phases.size()))};
  limit.y = {o.limit, o.limit};
  out.plot.title = "a fleet-wide rate limit through its store's faults";
  out.plot.x_label = "time (s)";
  out.plot.y_label = "calls/s";
  out.plot.lines = {std::move(admitted), std::move(limit)};
  for (std::size_t p = 0; p < r.phases.size(); ++p) {
    const auto k = static_cast<Duration::rep>(p);
    out.plot.bands.push_back({.from = Seconds(o.phase * k),
                              .to = Seconds(o.phase * (k + 1)),
                              .label = r.phases[p].name});
  }
  out.json["scenario"] = "fleet-limit";
  out.json["limit"] = o.limit;
  out.json["instances"] = o.instances;
  out.json["demand"] = o.demand;
  out.json["refresh_interval_ms"] = Millis(o.refresh_interval);
  out.json["lease_length_ms"] = Millis(o.lease_length);
  out.json["phase_s"] = Seconds(o.phase);
  out.json["seed"] = o.seed;
  out.json["phases"] = std::move(phases);
  return out;
}

}  // namespace stormguard::cli
