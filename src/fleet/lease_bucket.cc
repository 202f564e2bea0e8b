#include "stormguard/fleet/lease_bucket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stormguard {
namespace {

// The interval of a closed bucket (rate 0): about three years, so no token
// comes, yet far from overflowing when added to a steady-clock reading.
constexpr std::int64_t kClosedInterval = std::int64_t{100'000'000} * 1'000'000'000;
constexpr std::int64_t kMinBurstPerStripe = 8;

// Nanoseconds cut to [0, kClosedInterval]: a tiny rate or a huge burst
// never casts an out-of-range double.
std::int64_t ClampedNanos(double ns) {
  return static_cast<std::int64_t>(std::clamp(ns, 0.0, static_cast<double>(kClosedInterval)));
}

}  // namespace

LeaseBucket::LeaseBucket(int stripes, std::int64_t max_burst) {
  const int n = ResolveCapacityStripes(stripes, std::max<std::int64_t>(max_burst, 1), kMinBurstPerStripe);
  stripes_ = std::make_unique<Stripe[]>(static_cast<std::size_t>(n));
  mask_ = static_cast<std::size_t>(n) - 1;
  shape_.interval.store(kClosedInterval, std::memory_order_relaxed);
  for (std::size_t i = 0; i <= mask_; ++i) {
    // Full: the first SetRate keeps it full at the new rate.
    stripes_[i].tat.store(std::numeric_limits<std::int64_t>::min() / 2, std::memory_order_relaxed);
  }
}

bool LeaseBucket::TakeFrom(Stripe& stripe, std::int64_t now, std::int64_t interval, std::int64_t slack) noexcept {
  std::int64_t tat = stripe.tat.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t base = std::max(tat, now);
    if (base - now > slack) return false;
    if (stripe.tat.compare_exchange_weak(tat, base + interval, std::memory_order_acq_rel, std::memory_order_relaxed)) {
      return true;
    }
  }
}

bool LeaseBucket::TryAcquire(TimePoint now) noexcept {
  const std::int64_t t = now.time_since_epoch().count();
  const std::int64_t interval = shape_.interval.load(std::memory_order_acquire);
  const std::int64_t slack = shape_.slack.load(std::memory_order_relaxed);
  const std::size_t home = ThreadStripe();
  if (TakeFrom(stripes_[home & mask_], t, interval, slack)) [[likely]]
    return true;
  for (std::size_t k = 1; k <= mask_; ++k) {
    if (TakeFrom(stripes_[(home + k) & mask_], t, interval, slack)) {
      MoveThreadStripe();  // its own stripe is empty while others are not: spread out
      return true;
    }
  }
  return false;
}

void LeaseBucket::SetRate(double rate, std::int64_t burst, TimePoint now) noexcept {
  const std::int64_t t = now.time_since_epoch().count();
  const auto n = static_cast<std::int64_t>(mask_ + 1);
  const std::int64_t per_stripe = std::max<std::int64_t>(1, (std::max<std::int64_t>(burst, 1) + n - 1) / n);
  const bool closed = !(rate > 0);
  const std::int64_t interval =
      closed ? kClosedInterval
             : std::max<std::int64_t>(1, ClampedNanos(std::ceil(1e9 * static_cast<double>(n) / rate)));
  const std::int64_t old_interval = shape_.interval.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i <= mask_; ++i) {
    std::int64_t tat = stripes_[i].tat.load(std::memory_order_relaxed);
    std::int64_t next;
    do {
      // The tokens this stripe owes at the old rate, owed at the new one.
      const double owed = static_cast<double>(std::max<std::int64_t>(tat - t, 0)) / static_cast<double>(old_interval);
      next =
          t + (closed ? kClosedInterval
                      : ClampedNanos(std::min(owed, static_cast<double>(per_stripe)) * static_cast<double>(interval)));
    } while (!stripes_[i].tat.compare_exchange_weak(tat, next, std::memory_order_acq_rel, std::memory_order_relaxed));
  }
  const double slack = static_cast<double>(per_stripe - 1) * static_cast<double>(interval);
  shape_.slack.store(closed ? 0 : ClampedNanos(slack), std::memory_order_relaxed);
  shape_.interval.store(interval, std::memory_order_release);
  rate_.store(closed ? 0.0 : rate, std::memory_order_relaxed);
}

}  // namespace stormguard
