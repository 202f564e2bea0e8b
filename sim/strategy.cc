#include "stormguard/sim/strategy.h"

namespace stormguard::sim {

std::string_view StrategyName(Strategy s) noexcept {
  switch (s) {
    case Strategy::kNone: return "none";
    case Strategy::kFixed: return "fixed";
    case Strategy::kExponential: return "exponential";
    case Strategy::kFullJitter: return "full-jitter";
    case Strategy::kEqualJitter: return "equal-jitter";
    case Strategy::kDecorrelatedJitter: return "decorrelated-jitter";
  }
  return "unknown";
}

std::optional<Strategy> ParseStrategy(std::string_view name) noexcept {
  for (Strategy s : {Strategy::kNone, Strategy::kFixed, Strategy::kExponential, Strategy::kFullJitter,
                     Strategy::kEqualJitter, Strategy::kDecorrelatedJitter}) {
    if (StrategyName(s) == name) return s;
  }
  return std::nullopt;
}

BackoffOptions StrategyBackoff(Strategy s, Duration base, Duration cap) noexcept {
  BackoffOptions o{.kind = BackoffKind::kExponential, .base = base, .multiplier = 2.0, .cap = cap};
  switch (s) {
    case Strategy::kNone:
      o.kind = BackoffKind::kConstant;
      o.base = Duration::zero();
      break;
    case Strategy::kFixed: o.kind = BackoffKind::kConstant; break;
    case Strategy::kExponential: break;
    case Strategy::kFullJitter: o.jitter = Jitter::kFull; break;
    case Strategy::kEqualJitter: o.jitter = Jitter::kEqual; break;
    case Strategy::kDecorrelatedJitter: o.jitter = Jitter::kDecorrelated; break;
  }
  return o;
}

}  // namespace stormguard::sim
