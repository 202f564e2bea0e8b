#include "demo/demo_options.h"

namespace stormguard::demo {

std::string_view ModeName(Mode mode) noexcept {
  return mode == Mode::kNaive ? "naive" : "stormguard";
}

std::optional<Mode> ParseMode(std::string_view name) noexcept {
  if (name == "naive") return Mode::kNaive;
  if (name == "stormguard") return Mode::kStormguard;
  return std::nullopt;
}

std::vector<Phase> DemoOptions::Phases() const {
  return {{"healthy", healthy, false},
          {"down", down, true, kSettleBeforeOutage},
          {"recovered", recovered, false}};
}

std::vector<PhaseSpan> PhaseSpans(const std::vector<Phase>& phases) {
  std::vector<PhaseSpan> spans;
  Duration t{};
  for (const Phase& p : phases) {
    t += p.settle;
    spans.push_back({t, t + p.length});
    t += p.length;
  }
  return spans;
}

}  // namespace stormguard::demo
