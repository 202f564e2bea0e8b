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
  return {{"healthy", healthy, false}, {"down", down, true}, {"recovered", recovered, false}};
}

}  // namespace stormguard::demo
