// The gray phase of a fleet of C, as a table and as JSON (report.h).
#include <cstdio>

#include "demo/report.h"
#include "render/numbers.h"
#include "render/text_table.h"

namespace stormguard::demo {
namespace {

std::string SecondsOr(const std::optional<Duration>& t, const char* never) {
  if (!t) return never;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", render::Seconds(*t));
  return buf;
}

// A time from B's replica log: "-" for a mode without one.
std::string Time(const GraySummary& g, const std::optional<Duration>& t, const char* never) {
  return g.ejections_known ? SecondsOr(t, never) : "-";
}

nlohmann::json Millis(const std::optional<Duration>& t) {
  return t ? nlohmann::json(ToMillis(*t)) : nlohmann::json(nullptr);
}

}  // namespace

std::string FormatGrayTable(const DemoReport& r) {
  if (!r.fleet.enabled()) return "";
  std::string out = "\nthe gray replica (replica 0 of " + std::to_string(r.fleet.replicas) +
                    "), gray phase; its share of the attempts at C from " +
                    render::Fixed(render::Seconds(kGrayGrace), 0) + " s into the phase:\n";
  render::TextTable table({"mode", "success", "p50 ms", "p99 ms", "attempts at C per request", "at gray replica",
                           "(while healthy)", "ejected after", "readmitted after healed", "share back after healed"});
  for (const ModeReport& m : r.modes) {
    if (!m.gray) continue;
    const GraySummary& g = *m.gray;
    const PhaseSummary& s = m.phases[g.phase];
    table.Row({std::string(ModeName(m.mode)), render::Fixed(s.success_rate * 100, 2) + "%", render::Fixed(s.p50_ms, 0),
               render::Fixed(s.p99_ms, 0), render::Fixed(s.amplification, 2) + "x",
               render::Fixed(g.gray_share * 100, 1) + "% (" + std::to_string(g.gray_attempts) + " of " +
                   std::to_string(g.all_attempts) + ")",
               render::Fixed(g.healthy_share * 100, 1) + "%", Time(g, g.ejected, "not ejected"),
               Time(g, g.readmitted, g.ejected ? "still out" : "-"), SecondsOr(g.share_back, "never")});
  }
  return out + table.Render();
}

nlohmann::json GrayJson(const GraySummary& g) {
  nlohmann::json j = {
      {"phase", g.phase},           {"gray_attempts", g.gray_attempts}, {"all_attempts", g.all_attempts},
      {"gray_share", g.gray_share}, {"healthy_share", g.healthy_share}, {"share_back_ms", Millis(g.share_back)}};
  if (g.ejections_known) {
    j["ejected_ms"] = Millis(g.ejected);
    j["readmitted_ms"] = Millis(g.readmitted);
  }
  return j;
}

}  // namespace stormguard::demo
