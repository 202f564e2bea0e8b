// Reports for the scenarios built on a chain of services: chain, budget,
// metastable.
#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"
#include "simulate_report.h"

namespace stormguard::cli {
namespace {

using namespace render;  // the reports' tables and numbers

std::vector<double> BucketTimes(const sim::Series& s, std::size_t n) {
  std::vector<double> x;
  for (std::size_t i = 0; i < n; ++i) x.push_back(s.StartSeconds(i));
  return x;
}

std::vector<double> AsDoubles(const sim::Counts& c, std::size_t n) {
  std::vector<double> y;
  for (std::size_t i = 0; i < n; ++i) y.push_back(static_cast<double>(sim::At(c, i)));
  return y;
}

nlohmann::ordered_json SeriesJson(const sim::Series& s) {
  nlohmann::ordered_json j;
  j["bucket_ms"] = Millis(s.bucket);
  for (std::size_t n = 0; n < s.arrivals.size(); ++n) j["arrivals"].push_back(s.arrivals[n]);
  for (std::size_t h = 0; h < s.retries.size(); ++h) j["retries"].push_back(s.retries[h]);
  j["successes"] = s.successes;
  j["failures"] = s.failures;
  j["rejections"] = s.rejections;
  return j;
}

// Per bucket: arrivals at every node, retries of every hop, outcomes.
std::string SeriesTable(const sim::Series& s, const std::vector<std::string>& node_names) {
  std::vector<std::string> header{"t (s)"};
  for (const auto& n : node_names) header.push_back("in " + n);
  for (std::size_t h = 0; h < s.retries.size(); ++h) header.push_back("retries " + node_names[h]);
  for (const char* c : {"ok", "failed", "rejected"}) header.emplace_back(c);
  TextTable t(header);
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::vector<std::string> cells{Fixed(s.StartSeconds(i), 1)};
    for (const auto& a : s.arrivals) cells.push_back(std::to_string(sim::At(a, i)));
    for (const auto& r : s.retries) cells.push_back(std::to_string(sim::At(r, i)));
    for (const auto* c : {&s.successes, &s.failures, &s.rejections}) cells.push_back(std::to_string(sim::At(*c, i)));
    t.Row(cells);
  }
  return "\nper " + FormatDuration(s.bucket) + ":\n" + t.Render();
}

nlohmann::ordered_json ChainRunJson(const sim::ChainRun& run, bool series) {
  nlohmann::ordered_json j;
  j["control"] = sim::ControlName(run.control);
  j["offered"] = run.offered;
  j["bottom_attempts"] = run.bottom_attempts;
  j["amplification"] = Round(run.amplification, 4);
  j["success_rate"] = Round(run.success_rate, 4);
  for (const auto& l : run.layers) {
    nlohmann::ordered_json lj;
    lj["layer"] = l.name;
    lj["arrivals"] = l.arrivals;
    if (l.name != "bottom") {
      lj["retries"] = l.retries;
      lj["timeouts"] = l.timeouts;
      lj["budget_refused"] = l.budget_refused;
      lj["breaker_refused"] = l.breaker_refused;
    }
    j["by_layer"].push_back(lj);
  }
  if (series) j["series"] = SeriesJson(run.series);
  return j;
}

std::string ChainDetail(const sim::ChainRun& run) {
  TextTable t({"layer", "arrivals", "x offered", "retries sent", "timeouts", "budget refused", "breaker refused"});
  for (const auto& l : run.layers) {
    const bool bottom = l.name == "bottom";
    t.Row({l.name, std::to_string(l.arrivals), Fixed(l.load, 2), bottom ? "" : std::to_string(l.retries),
           bottom ? "" : std::to_string(l.timeouts), bottom ? "" : std::to_string(l.budget_refused),
           bottom ? "" : std::to_string(l.breaker_refused)});
  }
  return t.Render();
}

}  // namespace

Report BudgetReport(const sim::BudgetScenarioResult& r, bool series) {
  const sim::BudgetScenarioOptions& o = r.options;
  Report out;
  out.table = Fixed(o.rate, 0) + " requests/s for " + FormatDuration(o.duration) + "; the service fails " +
              Fixed(o.failure_rate * 100, 0) + "% of calls; " + std::to_string(o.retries) +
              " retry per request at most; token bucket " + Fixed(o.max_tokens, 1) + " tokens, +" +
              Fixed(o.token_ratio, 1) + " per success; seed " + std::to_string(o.seed) + "\n\n";
  out.table +=
      KeyValues({{"tokens exhausted after", r.exhausted_after ? Fixed(Millis(*r.exhausted_after), 1) + " ms" : "never"},
                 {"retries per request before", Fixed(r.retries_per_request_before, 3)},
                 {"retries per request after", Fixed(r.retries_per_request_after, 3)},
                 {"requests", std::to_string(r.offered)},
                 {"retries sent", std::to_string(r.retries)},
                 {"retries refused", std::to_string(r.refused)},
                 {"success rate", Fixed(r.success_rate, 3)}});
  if (series) out.table += SeriesTable(r.series, {"clients", "service"});

  out.json["scenario"] = "budget";
  out.json["rate"] = o.rate;
  out.json["failure_rate"] = o.failure_rate;
  out.json["max_tokens"] = o.max_tokens;
  out.json["token_ratio"] = o.token_ratio;
  out.json["seed"] = o.seed;
  out.json["exhausted_after_ms"] =
      r.exhausted_after ? nlohmann::ordered_json(Millis(*r.exhausted_after)) : nlohmann::ordered_json();
  out.json["retries_per_request_before"] = Round(r.retries_per_request_before, 4);
  out.json["retries_per_request_after"] = Round(r.retries_per_request_after, 4);
  out.json["offered"] = r.offered;
  out.json["retries"] = r.retries;
  out.json["refused"] = r.refused;
  out.json["success_rate"] = Round(r.success_rate, 4);
  if (series) out.json["series"] = SeriesJson(r.series);

  const std::size_t n = r.series.size();
  out.plot = {.title = "retries per " + FormatDuration(r.series.bucket) + " under a token bucket",
              .x_label = "seconds",
              .y_label = "retries",
              .lines = {}};
  out.plot.lines.push_back({.name = "sent", .x = BucketTimes(r.series, n), .y = AsDoubles(r.series.retries[0], n)});
  out.plot.lines.push_back({.name = "refused", .x = BucketTimes(r.series, n), .y = AsDoubles(r.series.rejections, n)});
  return out;
}

Report ChainReport(const sim::ChainScenarioResult& r, bool series) {
  const sim::ChainScenarioOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.layers) + " layers, " + std::to_string(o.retries) + " retries each, " +
              Fixed(o.rate, 0) + " requests/s for " + FormatDuration(o.duration) + "; the bottom " +
              (o.failure == sim::Failure::kError ? "fails" : "hangs on") + " " + Fixed(o.failure_rate * 100, 0) +
              "% of calls; timeout " + FormatDuration(o.timeout) + " per attempt; seed " + std::to_string(o.seed) +
              "\nevery layer retrying alone: (1+" + std::to_string(o.retries) + ")^" + std::to_string(o.layers) +
              " = " + Fixed(sim::UncontrolledAmplification(o.layers, o.retries), 0) + "\n\n";
  out.json["scenario"] = "chain";
  out.json["layers"] = o.layers;
  out.json["retries"] = o.retries;
  out.json["failure"] = sim::FailureName(o.failure);
  out.json["rate"] = o.rate;
  out.json["duration_s"] = Seconds(o.duration);
  out.json["seed"] = o.seed;
  out.plot = {.title = "attempts reaching the bottom per " + FormatDuration(o.bucket),
              .x_label = "seconds",
              .y_label = "attempts at the bottom",
              .lines = {}};
  if (r.runs.size() == 1) {
    const sim::ChainRun& run = r.runs[0];
    out.table += "control " + std::string(sim::ControlName(run.control)) + "\n\n" + ChainDetail(run) + "\noffered " +
                 std::to_string(run.offered) + ", bottom attempts " + std::to_string(run.bottom_attempts) +
                 ", amplification " + Fixed(run.amplification, 2) + ", success rate " + Fixed(run.success_rate, 3) +
                 "\n";
    out.json.update(ChainRunJson(run, series));
  } else {
    TextTable t({"control", "offered", "bottom attempts", "amplification", "success rate"});
    for (const auto& run : r.runs) {
      t.Row({std::string(sim::ControlName(run.control)), std::to_string(run.offered),
             std::to_string(run.bottom_attempts), Fixed(run.amplification, 2), Fixed(run.success_rate, 3)});
      out.json["controls"].push_back(ChainRunJson(run, series));
    }
    out.table += t.Render();
  }
  for (const auto& run : r.runs) {
    const std::size_t n = run.series.size();
    out.plot.lines.push_back({.name = std::string(sim::ControlName(run.control)),
                              .x = BucketTimes(run.series, n),
                              .y = AsDoubles(run.series.arrivals.back(), n)});
    if (series) {
      std::vector<std::string> names;
      for (const auto& l : run.layers) names.push_back(l.name);
      out.table += "\n" + std::string(sim::ControlName(run.control)) + SeriesTable(run.series, names);
    }
  }
  return out;
}

}  // namespace stormguard::cli

namespace stormguard::cli {
namespace {

std::string Recovery(const std::optional<Duration>& d) { return d ? Fixed(Seconds(*d), 1) + " s" : "never"; }

nlohmann::ordered_json MetastableRunJson(const sim::MetastableRun& run, bool series) {
  nlohmann::ordered_json j;
  j["control"] = sim::ControlName(run.control);
  j["goodput_before"] = Round(run.goodput_before, 4);
  j["goodput_during"] = Round(run.goodput_during, 4);
  j["goodput_after"] = Round(run.goodput_after, 4);
  j["recovery_s"] = run.recovery ? nlohmann::ordered_json(Seconds(*run.recovery)) : nlohmann::ordered_json();
  j["offered"] = run.offered;
  j["amplification"] = Round(run.amplification, 4);
  j["peak_queue"] = run.peak_queue;
  if (series) {
    j["goodput_permille"] = run.goodput_permille;
    j["series"] = SeriesJson(run.series);
  }
  return j;
}

}  // namespace

Report MetastableReport(const sim::MetastableResult& r, bool series) {
  const sim::MetastableOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.layers) + " layers (" + std::to_string(o.retries) + " retries, " +
              FormatDuration(o.timeout) + " per attempt) over a service of " + std::to_string(o.workers) +
              " workers x " + FormatDuration(o.latency) + " (" + Fixed(o.capacity(), 0) + " requests/s) at " +
              Fixed(o.load * 100, 0) + "% load;\n" + Fixed(o.drop * 100, 0) + "% of its workers are lost from " +
              FormatDuration(o.trigger_at) + " to " + FormatDuration(o.trigger_at + o.trigger_for) + "; clients wait " +
              FormatDuration(o.patience) + "; seed " + std::to_string(o.seed) + "\n\n";
  TextTable t({"control", "goodput before", "during", "after", "recovery", "amplification", "peak queue"});
  out.json["scenario"] = "metastable";
  out.json["layers"] = o.layers;
  out.json["retries"] = o.retries;
  out.json["load"] = o.load;
  out.json["capacity_rps"] = Round(o.capacity(), 3);
  out.json["seed"] = o.seed;
  out.plot = {.title = "goodput per " + FormatDuration(o.bucket) + " (capacity lost from " +
                       FormatDuration(o.trigger_at) + " to " + FormatDuration(o.trigger_at + o.trigger_for) + ")",
              .x_label = "seconds",
              .y_label = "share of requests that succeed",
              .lines = {}};
  for (const auto& run : r.runs) {
    t.Row({std::string(sim::ControlName(run.control)), Fixed(run.goodput_before, 3), Fixed(run.goodput_during, 3),
           Fixed(run.goodput_after, 3), Recovery(run.recovery), Fixed(run.amplification, 2),
           std::to_string(run.peak_queue)});
    if (r.runs.size() == 1) {
      out.json.update(MetastableRunJson(run, series));
    } else {
      out.json["controls"].push_back(MetastableRunJson(run, series));
    }
    render::PlotLine line{.name = std::string(sim::ControlName(run.control)), .x = {}, .y = {}};
    for (std::size_t i = 0; i < run.goodput_permille.size(); ++i) {
      line.x.push_back(run.series.StartSeconds(i));
      line.y.push_back(static_cast<double>(run.goodput_permille[i]) / 1000.0);
    }
    out.plot.lines.push_back(std::move(line));
  }
  out.table += t.Render();
  if (series) {
    for (const auto& run : r.runs) {
      std::vector<std::string> names;
      for (int i = 1; i <= o.layers; ++i) names.push_back(std::to_string(i));
      names.emplace_back("service");
      out.table += "\n" + std::string(sim::ControlName(run.control)) + SeriesTable(run.series, names);
    }
  }
  return out;
}

}  // namespace stormguard::cli
