#include "demo/report.h"

namespace stormguard::demo {
namespace {

nlohmann::json PhaseJson(const PhaseSummary& s) {
  return {{"offered", s.offered},
          {"reached_bottom", s.reached_bottom},
          {"amplification", s.amplification},
          {"success_rate", s.success_rate},
          {"p50_ms", s.p50_ms},
          {"p99_ms", s.p99_ms},
          {"p999_ms", s.p999_ms},
          {"orphan_ratio", s.orphan_ratio},
          {"duplicate_effects", s.duplicate_effects}};
}

// The phase right after the last outage, where recovery is measured.
std::size_t RecoveryPhase(const std::vector<Phase>& phases) {
  std::size_t after = phases.size();
  for (std::size_t p = 0; p + 1 < phases.size(); ++p) {
    if (phases[p].bottom_down) after = p + 1;
  }
  return after;
}

}  // namespace

nlohmann::json ReportJson(const DemoReport& r) {
  nlohmann::json out = nlohmann::json::object();
  const std::size_t recovery_phase = RecoveryPhase(r.phases);
  for (const ModeReport& m : r.modes) {
    nlohmann::json& mode = out[std::string(ModeName(m.mode))];
    for (std::size_t p = 0; p < r.phases.size(); ++p) {
      nlohmann::json phase = PhaseJson(m.phases[p]);
      if (p == recovery_phase) {
        phase["recovery_ms"] = m.recovery ? nlohmann::json(ToMillis(*m.recovery)) : nlohmann::json(nullptr);
      }
      mode[r.phases[p].name] = std::move(phase);
    }
    if (m.gray) mode["gray_replica"] = GrayJson(*m.gray);
  }
  return out;
}

}  // namespace stormguard::demo
