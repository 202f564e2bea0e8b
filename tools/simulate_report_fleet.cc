// The report of `stormguard simulate fleet`: per picker, with and without
// outlier ejection, success, request latency, and where the attempts went.
#include <algorithm>

#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"
#include "simulate_report.h"

namespace stormguard::cli {
namespace {

using namespace render;

std::string Ms(Duration d) { return Fixed(Millis(d), 1) + " ms"; }
std::string Percent(double share) { return Fixed(100 * share, 2) + "%"; }

std::string Setup(const sim::FleetScenarioOptions& o) {
  const std::string bad =
      o.gray_mode == sim::GrayMode::kSlow ? "take " + FormatDuration(o.gray_latency) : std::string("fail");
  return std::to_string(o.replicas) + " replicas, " + std::to_string(o.gray_replicas()) + " of them gray (" +
         Fixed(100 * o.gray_share, 0) + "% of their answers " + bad + "); healthy answers in " +
         FormatDuration(o.latency) + " (median, lognormal sigma " + Fixed(o.latency_sigma, 2) + "), " +
         std::to_string(o.concurrency) + " at once + " + std::to_string(o.queue) + " queued per replica\n" +
         std::to_string(o.clients) + " clients in " + std::to_string(o.client_groups) +
         " groups (one ReplicaSet per group), " + std::to_string(o.requests) + " requests per run at " +
         Fixed(o.rate, 0) + "/s (Poisson); deadline " + FormatDuration(o.deadline) + ", " +
         FormatDuration(o.attempt_timeout) + " per attempt, up to " + std::to_string(o.max_attempts) +
         " attempts on different replicas; seed " + std::to_string(o.seed) + "\n\n";
}

nlohmann::ordered_json RunJson(const sim::FleetRun& r) {
  nlohmann::ordered_json j;
  j["picker"] = PickerKindName(r.picker);
  j["ejection"] = r.ejection;
  j["hedge"] = r.hedge;
  j["requests"] = r.requests;
  j["hedges"] = r.hedges;
  j["success_rate"] = Round(r.success_rate(), 5);
  j["p50_ms"] = Millis(r.p50);
  j["p99_ms"] = Millis(r.p99);
  j["p999_ms"] = Millis(r.p999);
  j["attempts"] = r.attempts;
  j["attempts_per_request"] = Round(r.attempts_per_request(), 4);
  j["attempts_per_healthy_replica"] = Round(r.per_healthy_replica(), 1);
  j["attempts_per_gray_replica"] = Round(r.per_gray_replica(), 1);
  j["gray_attempts"] = r.gray_attempts;
  j["gray_wasted"] = r.gray_wasted;
  j["gray_share"] = Round(r.gray_share(), 5);
  j["wasted_on_gray"] = Round(r.wasted_on_gray(), 5);
  j["rejected"] = r.rejected;
  j["ejections"] = r.ejections;
  j["events"] = r.events;
  return j;
}

}  // namespace

Report FleetReport(const sim::FleetScenarioResult& r, bool /*series*/) {
  const sim::FleetScenarioOptions& o = r.options;
  Report out;
  out.table = Setup(o);
  // The hedge column only when a run hedged: the default table stays as it was.
  const bool hedging = std::find(o.hedge.begin(), o.hedge.end(), true) != o.hedge.end();
  std::vector<std::string> columns = {"picker",   "ejection",   "success",        "p50",
                                      "p99",      "p99.9",      "attempts/req",   "per healthy",
                                      "per gray", "gray share", "wasted on gray", "ejections"};
  if (hedging) columns.insert(columns.begin() + 2, "hedge");
  TextTable table(columns);
  PlotLine p99{.name = "p99 (ms)"};
  PlotLine wasted{.name = "wasted on gray (% of attempts)"};
  for (const sim::FleetRun& run : r.runs) {
    std::vector<std::string> row = {std::string(PickerKindName(run.picker)),
                                    run.ejection ? "on" : "off",
                                    Percent(run.success_rate()),
                                    Ms(run.p50),
                                    Ms(run.p99),
                                    Ms(run.p999),
                                    Fixed(run.attempts_per_request(), 3),
                                    Fixed(run.per_healthy_replica(), 0),
                                    Fixed(run.per_gray_replica(), 0),
                                    Percent(run.gray_share()),
                                    Percent(run.wasted_on_gray()),
                                    std::to_string(run.ejections)};
    if (hedging) row.insert(row.begin() + 2, run.hedge ? "on" : "off");
    table.Row(row);
    out.json["runs"].push_back(RunJson(run));
    const double x = static_cast<double>(p99.x.size());
    p99.x.push_back(x);
    p99.y.push_back(Millis(run.p99));
    wasted.x.push_back(x);
    wasted.y.push_back(100 * run.wasted_on_gray());
  }
  out.table += table.Render();
  out.table +=
      "\nper healthy / per gray: attempts each replica of the class served; gray share: attempts sent to gray "
      "replicas; wasted on gray: those that brought no success (timed out, failed or refused), as a share of "
      "all attempts\n";
  out.plot.title = "fleet: one point per run, in the table's order";
  out.plot.x_label = "run";
  out.plot.y_label = "ms, %";
  out.plot.lines = {std::move(p99), std::move(wasted)};
  out.json["scenario"] = "fleet";
  out.json["clients"] = o.clients;
  out.json["client_groups"] = o.client_groups;
  out.json["replicas"] = o.replicas;
  out.json["gray_replicas"] = o.gray_replicas();
  out.json["gray_mode"] = sim::GrayModeName(o.gray_mode);
  out.json["rate"] = o.rate;
  out.json["deadline_ms"] = Millis(o.deadline);
  out.json["attempt_timeout_ms"] = Millis(o.attempt_timeout);
  out.json["seed"] = o.seed;
  return out;
}

}  // namespace stormguard::cli
