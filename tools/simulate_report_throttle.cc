// The report of `stormguard simulate throttle`: per strategy, what the
// backend received and accepted.
#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"
#include "simulate_report.h"

namespace stormguard::cli {
namespace {

using namespace render;

std::string Strategy(const sim::ThrottleRun& run) {
  std::string name(sim::ThrottleStrategyName(run.strategy));
  return run.strategy == sim::ThrottleStrategy::kThrottle ? name + " k=" + Fixed(run.k, 2) : name;
}

nlohmann::ordered_json RunJson(const sim::ThrottleRun& r) {
  nlohmann::ordered_json j;
  j["strategy"] = sim::ThrottleStrategyName(r.strategy);
  if (r.strategy == sim::ThrottleStrategy::kThrottle) j["k"] = r.k;
  j["requests"] = r.requests;
  j["succeeded"] = r.succeeded;
  j["received"] = r.received;
  j["accepted"] = r.accepted;
  j["received_per_accepted"] = Round(r.received_per_accepted(), 4);
  j["refused_locally"] = r.refused_local;
  return j;
}

}  // namespace

Report ThrottleReport(const sim::ThrottleScenarioResult& r, bool /*series*/) {
  const sim::ThrottleScenarioOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.clients) + " clients, " + Fixed(o.rate, 0) + " requests/s together (Poisson) for " +
              FormatDuration(o.duration) + "; the backend has room for " + Fixed(100 * (1 - o.reject_share), 1) +
              "% of that and refuses the rest (429); up to " + std::to_string(o.max_attempts) +
              " attempts per request, no backoff; seed " + std::to_string(o.seed) + "\n\n";
  TextTable table({"strategy", "requests", "succeeded", "received", "accepted", "received/accepted",
                   "refused locally"});
  PlotLine ratio{.name = "received / accepted"};
  for (const sim::ThrottleRun& run : r.runs) {
    table.Row({Strategy(run), std::to_string(run.requests), std::to_string(run.succeeded), std::to_string(run.received),
               std::to_string(run.accepted), Fixed(run.received_per_accepted(), 2), std::to_string(run.refused_local)});
    out.json["runs"].push_back(RunJson(run));
    ratio.x.push_back(static_cast<double>(ratio.x.size()));
    ratio.y.push_back(run.received_per_accepted());
  }
  out.table += table.Render();
  out.table +=
      "\nreceived: attempts that reached the backend; refused locally: attempts the adaptive throttle answered "
      "itself (window 2 min, min_requests 20)\n";
  out.plot.title = "throttle: one point per run, in the table's order";
  out.plot.x_label = "run";
  out.plot.y_label = "received / accepted";
  out.plot.lines = {std::move(ratio)};
  out.json["scenario"] = "throttle";
  out.json["clients"] = o.clients;
  out.json["rate"] = o.rate;
  out.json["reject_share"] = o.reject_share;
  out.json["duration_s"] = Seconds(o.duration);
  out.json["max_attempts"] = o.max_attempts;
  out.json["seed"] = o.seed;
  return out;
}

}  // namespace stormguard::cli
