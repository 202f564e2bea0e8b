// The report of `stormguard simulate hedge`: per run (no hedging, a fixed
// delay, a live percentile) the extra load and the leaf and fan-out
// percentiles.
#include <cmath>

#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"
#include "simulate_report.h"

namespace stormguard::cli {
namespace {

using namespace render;

std::string Ms(Duration d) { return Fixed(std::chrono::duration<double, std::milli>(d).count(), 2); }

std::string Leaves(int n) { return std::to_string(n) + (n == 1 ? " leaf" : " leaves"); }

std::string RunName(const sim::HedgeRun& run, const sim::HedgeScenarioOptions& o) {
  switch (run.mode) {
    case sim::HedgeMode::kOff: return "off";
    case sim::HedgeMode::kFixed: return "fixed " + FormatDuration(o.delay);
    case sim::HedgeMode::kLive: return "live p" + FormatNumber(100 * o.quantile);
  }
  return "";
}

nlohmann::ordered_json QuantilesJson(const sim::LatencyQuantiles& q) {
  return {{"p50_ms", Millis(q.p50)}, {"p95_ms", Millis(q.p95)}, {"p99_ms", Millis(q.p99)}, {"p999_ms", Millis(q.p999)}};
}

nlohmann::ordered_json RunJson(const sim::HedgeRun& r) {
  nlohmann::ordered_json j;
  j["mode"] = sim::HedgeModeName(r.mode);
  j["delay_at_end_ms"] = Millis(r.last_delay);
  j["leaf_requests"] = r.leaf_requests;
  j["hedges"] = r.hedges;
  j["hedge_wins"] = r.hedge_wins;
  j["budget_refusals"] = r.budget_refusals;
  j["extra_load"] = Round(r.extra_load(), 5);
  j["leaf"] = QuantilesJson(r.leaf);
  j["fan_out"] = QuantilesJson(r.fan_out);
  return j;
}

std::string LatencyText(const sim::LatencyMixture& m) {
  const std::string name = m == sim::LatencyMixture::TailAtScale() ? "the tail-at-scale preset" : "custom";
  return "leaf latency (" + name + "): normal " + FormatDuration(m.body_mean) + " sd " + FormatDuration(m.body_sd) +
         ", " + FormatNumber(100 * m.tail_share) + "% " + std::string(sim::TailShapeName(m.tail)) + " tail (scale " +
         FormatDuration(m.tail_scale) +
         (m.tail == sim::TailShape::kPareto ? ", alpha " + FormatNumber(m.tail_alpha) : std::string()) + "), " +
         FormatNumber(100 * m.stall_share) + "% stalls (mean " + FormatDuration(m.stall_mean) + "), clamped to [" +
         FormatDuration(m.min) + ", " + FormatDuration(m.max) + "]";
}

nlohmann::ordered_json LatencyJson(const sim::LatencyMixture& m) {
  return {{"body_mean_ms", Millis(m.body_mean)},
          {"body_sd_ms", Millis(m.body_sd)},
          {"tail_share", m.tail_share},
          {"tail", sim::TailShapeName(m.tail)},
          {"tail_scale_ms", Millis(m.tail_scale)},
          {"tail_alpha", m.tail_alpha},
          {"stall_share", m.stall_share},
          {"stall_mean_ms", Millis(m.stall_mean)},
          {"min_ms", Millis(m.min)},
          {"max_ms", Millis(m.max)}};
}

// One line per run and side: latency (log10 ms) against -log10(1 - q), so p99.9 sits at 3.
PlotLine Curve(const std::string& name, const sim::LatencyQuantiles& q) {
  PlotLine line{.name = name};
  const std::pair<double, Duration> points[] = {{0.5, q.p50}, {0.95, q.p95}, {0.99, q.p99}, {0.999, q.p999}};
  for (const auto& [quantile, d] : points) {
    line.x.push_back(Round(-std::log10(1 - quantile), 3));
    line.y.push_back(Round(std::log10(std::max(Millis(d, 6), 1e-3)), 4));
  }
  return line;
}

}  // namespace

Report HedgeReport(const sim::HedgeScenarioResult& r, bool /*series*/) {
  const sim::HedgeScenarioOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.requests) + " requests (Poisson, " + FormatNumber(o.rate) + "/s), each to " +
              Leaves(o.leaves) + ", answering when " + std::to_string(r.waited_leaves) + " of them answered; " +
              LatencyText(o.latency) + "; hedges may add " + FormatNumber(100 * o.max_extra_load) + "% load; seed " +
              std::to_string(o.seed) + "\n\n";
  TextTable table({"hedge", "delay", "extra load", "hedge wins", "leaf p50", "p95", "p99", "p99.9", "fan-out p50",
                   "p95", "p99", "p99.9"});
  for (const sim::HedgeRun& run : r.runs) {
    table.Row({RunName(run, o), run.mode == sim::HedgeMode::kOff ? "-" : Ms(run.last_delay),
               Fixed(100 * run.extra_load(), 2) + "%", std::to_string(run.hedge_wins), Ms(run.leaf.p50),
               Ms(run.leaf.p95), Ms(run.leaf.p99), Ms(run.leaf.p999), Ms(run.fan_out.p50), Ms(run.fan_out.p95),
               Ms(run.fan_out.p99), Ms(run.fan_out.p999)});
    out.json["runs"].push_back(RunJson(run));
    out.plot.lines.push_back(Curve("leaf, " + RunName(run, o), run.leaf));
    out.plot.lines.push_back(Curve("fan-out, " + RunName(run, o), run.fan_out));
  }
  out.table += table.Render();
  out.table +=
      "\nlatencies in ms; delay: the hedge delay in force at the end (live: the tracker's quantile, window 10s); "
      "extra load: hedges sent / leaf requests\n";
  out.plot.title = "hedge: latency percentiles, leaf and fan-out";
  out.plot.x_label = "-log10(1 - q): 2 is p99, 3 is p99.9";
  out.plot.y_label = "latency, log10 ms";
  out.json["scenario"] = "hedge";
  out.json["leaves"] = o.leaves;
  out.json["wait_for"] = o.wait_for;
  out.json["waited_leaves"] = r.waited_leaves;
  out.json["requests"] = o.requests;
  out.json["rate"] = o.rate;
  out.json["delay_ms"] = Millis(o.delay);
  out.json["quantile"] = o.quantile;
  out.json["max_extra_load"] = o.max_extra_load;
  out.json["latency"] = LatencyJson(o.latency);
  out.json["seed"] = o.seed;
  return out;
}

}  // namespace stormguard::cli
