// stormguard/sim/strategy.h: the backoff strategies the scenarios compare.
//
//   BackoffOptions o = sim::StrategyBackoff(sim::Strategy::kFullJitter, 1s, 30s);
//   // exponential from 1 s, doubling, capped at 30 s, wait = rand(0, b)
//
// Names match `stormguard backoff --strategy`: none, fixed, exponential,
// full-jitter, equal-jitter, decorrelated-jitter. Thread safety: pure functions.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "stormguard/backoff/backoff.h"

namespace stormguard::sim {

enum class Strategy { kNone, kFixed, kExponential, kFullJitter, kEqualJitter, kDecorrelatedJitter };

// The storm's comparison (every strategy but "retry at once").
inline constexpr std::array<Strategy, 5> kBackoffStrategies = {Strategy::kFixed, Strategy::kExponential,
                                                               Strategy::kFullJitter, Strategy::kEqualJitter,
                                                               Strategy::kDecorrelatedJitter};

std::string_view StrategyName(Strategy s) noexcept;
std::optional<Strategy> ParseStrategy(std::string_view name) noexcept;

// none: no wait; fixed: base every time; exponential: base * 2^(n-1);
// the jitters apply their formulas to the exponential curve; all capped.
BackoffOptions StrategyBackoff(Strategy s, Duration base, Duration cap) noexcept;

}  // namespace stormguard::sim
