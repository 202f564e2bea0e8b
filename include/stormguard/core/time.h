// stormguard/core/time.h: the duration and time-point types every policy uses.
//
// All of stormguard measures time on one monotonic axis in nanoseconds, so a
// ManualClock and the real SteadyClock hand out interchangeable time points.
//
//   stormguard::Duration wait = std::chrono::milliseconds(100);
//   stormguard::TimePoint at = clock.Now() + wait;
//
// Thread safety: plain value types.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

namespace stormguard {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

inline constexpr Duration kInfiniteDuration = Duration::max();
inline constexpr TimePoint kInfinitePast = TimePoint::min();
inline constexpr TimePoint kInfiniteFuture = TimePoint::max();

// a + b, saturating at the ends of the range instead of overflowing.
constexpr Duration SaturatingAdd(Duration a, Duration b) noexcept {
  using Rep = Duration::rep;
  Rep out = 0;
  if (__builtin_add_overflow(a.count(), b.count(), &out)) {
    return b.count() > 0 ? Duration::max() : Duration::min();
  }
  return Duration(out);
}

// t + d, saturating at kInfiniteFuture / kInfinitePast.
constexpr TimePoint SaturatingAdd(TimePoint t, Duration d) noexcept {
  return TimePoint(SaturatingAdd(t.time_since_epoch(), d));
}

// d * factor for a non-negative factor, saturating at Duration::max().
constexpr Duration SaturatingScale(Duration d, double factor) noexcept {
  if (d.count() <= 0 || factor <= 0) return Duration::zero();
  const double scaled = static_cast<double>(d.count()) * factor;
  if (!(scaled < static_cast<double>(std::numeric_limits<Duration::rep>::max()))) {
    return Duration::max();
  }
  return Duration(static_cast<Duration::rep>(scaled));
}

// Milliseconds as a double, for printing.
constexpr double ToMillis(Duration d) noexcept { return static_cast<double>(d.count()) / 1e6; }

}  // namespace stormguard
