#include "stormguard/pipeline/stage_placement.h"

namespace stormguard {
namespace {

// The outermost stage of `kind`, or stages.size().
std::size_t First(std::span<const StagePlacement> stages, std::string_view kind) {
  std::size_t i = 0;
  while (i < stages.size() && stages[i].kind != kind) ++i;
  return i;
}

}  // namespace

std::vector<PlacementError> CheckPlacements(std::span<const StagePlacement> stages) {
  std::vector<PlacementError> errors;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const StagePlacement& p = stages[i];
    const std::size_t first = First(stages, p.kind);
    if (p.once && first < i) {
      errors.push_back({i, "a second " + std::string(p.kind) + " stage (the first is stages[" + std::to_string(first) +
                               "])"});
    }
    for (const PlacementRule& rule : p.rules) {
      const std::size_t other = First(stages, rule.of);
      if (other == stages.size() || other == i) continue;
      const bool inside = i > other;
      if (inside == (rule.side == PlacementRule::kInside)) continue;
      errors.push_back({i, std::string(inside ? "inside " : "outside ") + std::string(rule.of) + " (stages[" +
                               std::to_string(other) + "]) " + std::string(rule.why)});
    }
  }
  return errors;
}

}  // namespace stormguard
