// stormguard/core/deadline.h: a time budget that only shrinks along a chain.
//
// A Deadline is either infinite or a point on the monotonic axis. A server
// that received a request with 900 ms left keeps a reserve for its own work
// (10-20% per hop, docs/deadlines.md) and hands the rest to its downstream calls:
//
//   Deadline in = Deadline::After(clock.Now(), 900ms);
//   Deadline down = in.ForNextHop(clock.Now(), HopReserve{.fraction = 0.1});
//   // down.Remaining(now) == 810ms; never later than `in`.
//
// Thread safety: a plain value type.
#pragma once

#include <algorithm>

#include "stormguard/core/time.h"

namespace stormguard {

// What a hop keeps for itself before handing its budget downstream:
// `fraction` of the remaining time plus a fixed `overhead`.
struct HopReserve {
  double fraction = 0.0;  // in [0, 1)
  Duration overhead = Duration::zero();
};

class Deadline {
 public:
  // Infinite by default: no budget was given.
  constexpr Deadline() noexcept = default;

  static constexpr Deadline Infinite() noexcept { return Deadline(); }
  static constexpr Deadline At(TimePoint t) noexcept { return Deadline(t); }
  // `now + budget`, saturating; a negative budget gives an expired deadline.
  static constexpr Deadline After(TimePoint now, Duration budget) noexcept {
    return Deadline(SaturatingAdd(now, budget));
  }

  constexpr bool is_infinite() const noexcept { return at_ == kInfiniteFuture; }
  constexpr TimePoint time() const noexcept { return at_; }

  // Time left at `now`; zero once expired; kInfiniteDuration when infinite.
  constexpr Duration Remaining(TimePoint now) const noexcept {
    if (is_infinite()) return kInfiniteDuration;
    return at_ > now ? at_ - now : Duration::zero();
  }
  constexpr bool Expired(TimePoint now) const noexcept { return !is_infinite() && now >= at_; }

  // The earlier of the two.
  constexpr Deadline Min(Deadline other) const noexcept { return Deadline(std::min(at_, other.at_)); }
  // This deadline, tightened to at most `now + limit` (a per-attempt timeout,
  // a server's own maximum).
  constexpr Deadline Within(TimePoint now, Duration limit) const noexcept { return Min(After(now, limit)); }

  // The deadline for the next hop: what remains minus this hop's reserve,
  // never later than this deadline and never before `now`. An infinite
  // deadline stays infinite (there is no budget to split).
  constexpr Deadline ForNextHop(TimePoint now, HopReserve reserve) const noexcept {
    if (is_infinite()) return *this;
    const Duration left = Remaining(now);
    const Duration keep = SaturatingAdd(SaturatingScale(left, reserve.fraction), reserve.overhead);
    const Duration give = keep >= left ? Duration::zero() : left - keep;
    return Min(After(now, give));
  }

  friend constexpr bool operator==(Deadline a, Deadline b) noexcept = default;

 private:
  constexpr explicit Deadline(TimePoint t) noexcept : at_(t) {}
  TimePoint at_ = kInfiniteFuture;
};

}  // namespace stormguard
