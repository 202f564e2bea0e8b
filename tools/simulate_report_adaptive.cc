// The report of `stormguard simulate adaptive-timeout`: per mode and phase,
// success, attempts per call, timeouts, latency and the timeouts given.
#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"
#include "simulate_report.h"

namespace stormguard::cli {
namespace {

using namespace render;

std::string Ms(Duration d) { return Fixed(Millis(d), 1) + " ms"; }

std::string TimeoutRange(const sim::PhaseStats& p) {
  return p.min_timeout == p.max_timeout ? Ms(p.min_timeout) : Ms(p.min_timeout) + " - " + Ms(p.max_timeout);
}

nlohmann::ordered_json PhaseJson(const sim::PhaseStats& p) {
  nlohmann::ordered_json j;
  j["phase"] = p.name;
  j["calls"] = p.calls;
  j["success_rate"] = Round(p.success_rate(), 4);
  j["attempts_per_call"] = Round(p.attempts_per_call(), 3);
  j["timeouts"] = p.timeouts;
  j["p50_ms"] = Millis(p.p50);
  j["p99_ms"] = Millis(p.p99);
  j["min_timeout_ms"] = Millis(p.min_timeout);
  j["max_timeout_ms"] = Millis(p.max_timeout);
  return j;
}

}  // namespace

Report AdaptiveTimeoutReport(const sim::AdaptiveTimeoutScenarioResult& r, bool /*series*/) {
  const sim::AdaptiveTimeoutScenarioOptions& o = r.options;
  const AdaptiveTimeoutOptions& a = o.adaptive;
  Report out;
  out.table = "3 phases of " + FormatDuration(o.phase) + " at " + Fixed(o.rate, 0) + " requests/s; answers take " +
              FormatDuration(o.healthy) + " (median), " + FormatDuration(o.degraded) +
              " for everyone while degraded; up to " + std::to_string(o.max_attempts) + " attempts in a " +
              FormatDuration(o.deadline) + " deadline; seed " + std::to_string(o.seed) +
              "\nfixed: " + FormatDuration(o.fixed_timeout) + " per attempt; adaptive: quantile " +
              Fixed(a.quantile, 3) + " x " + Fixed(a.factor, 2) + " of a " + FormatDuration(o.window) + " window in [" +
              FormatDuration(a.min) + ", " + FormatDuration(a.max) + "], warm-up " + FormatDuration(a.warmup) +
              ", refreshed every " + FormatDuration(a.refresh) + "\n\n";
  TextTable table({"mode", "phase", "calls", "success", "attempts/call", "timeouts", "p50", "p99", "timeout given"});
  nlohmann::ordered_json modes = nlohmann::ordered_json::array();
  for (const sim::ModeResult& m : r.modes) {
    nlohmann::ordered_json mj;
    mj["mode"] = m.name;
    for (const sim::PhaseStats& p : m.phases) {
      table.Row({m.name, p.name, std::to_string(p.calls), Fixed(100 * p.success_rate(), 2) + "%",
                 Fixed(p.attempts_per_call(), 2), std::to_string(p.timeouts), Ms(p.p50), Ms(p.p99), TimeoutRange(p)});
      mj["phases"].push_back(PhaseJson(p));
    }
    PlotLine line{.name = m.name + " timeout (ms)"};
    for (std::size_t i = 0; i < m.timeout_samples.size(); ++i) {
      line.x.push_back(Seconds(o.sample_every * static_cast<Duration::rep>(i)));
      line.y.push_back(Millis(m.timeout_samples[i]));
      mj["timeout_ms"].push_back(Millis(m.timeout_samples[i]));
    }
    out.plot.lines.push_back(std::move(line));
    modes.push_back(std::move(mj));
  }
  out.table += table.Render();
  const sim::ModeResult& adaptive = r.modes.back();
  out.table += "\nadaptive timeout every " + FormatDuration(o.sample_every) + " (ms):";
  for (std::size_t i = 0; i < adaptive.timeout_samples.size(); ++i) {
    out.table += (i % 10 == 0 ? "\n  " : " ") + Fixed(Millis(adaptive.timeout_samples[i]), 1);
  }
  const std::optional<Duration> back = sim::BackWithinTwiceHealthy(adaptive, o);
  out.table += "\nrecovered: the adaptive timeout was back within 2x of its healthy value " +
               (back ? FormatDuration(*back) + " after the latency recovered" : std::string("never")) + "\n";
  out.plot.title = "per-attempt timeout, fixed and adaptive";
  out.plot.x_label = "time (s)";
  out.plot.y_label = "timeout (ms)";
  for (int p = 0; p < 3; ++p) {
    out.plot.bands.push_back({.from = Seconds(o.phase * p),
                              .to = Seconds(o.phase * (p + 1)),
                              .label = r.modes.front().phases[static_cast<std::size_t>(p)].name});
  }
  out.json["scenario"] = "adaptive-timeout";
  out.json["rate"] = o.rate;
  out.json["phase_s"] = Seconds(o.phase);
  out.json["healthy_ms"] = Millis(o.healthy);
  out.json["degraded_ms"] = Millis(o.degraded);
  out.json["fixed_timeout_ms"] = Millis(o.fixed_timeout);
  out.json["seed"] = o.seed;
  out.json["back_within_2x_healthy_s"] = back ? nlohmann::ordered_json(Seconds(*back)) : nlohmann::ordered_json();
  out.json["modes"] = std::move(modes);
  return out;
}

}  // namespace stormguard::cli
