// stormguard/hedge/internal/refreshed_quantile.h (internal): a duration
// computed from a latency tracker's quantile, recomputed at most once per
// refresh period. HedgePolicy's live delay and AdaptiveTimeout share it.
//
//   hedge_internal::RefreshedQuantile cached{warmup};
//   Duration d = cached.Get(now, 100ms, [&](TimePoint t) { return FromTracker(t); });
//
// Not part of the public API. It lives in a header, inline, because both
// users keep it as a member and read it on every call: the read must stay
// two atomic loads, with no call.
// Thread safety: Get may run concurrently. One caller per period wins the
// compare-and-swap and recomputes (a histogram scan); the others keep the
// previous value meanwhile, so `compute` never runs twice at once.
#pragma once

#include <atomic>

#include "stormguard/core/time.h"

namespace stormguard::hedge_internal {

class RefreshedQuantile {
 public:
  explicit RefreshedQuantile(Duration initial) noexcept : value_(initial.count()) {}
  RefreshedQuantile(const RefreshedQuantile&) = delete;
  RefreshedQuantile& operator=(const RefreshedQuantile&) = delete;

  // The cached value, first recomputed by `compute(now)` when `refresh` has
  // passed since the last recomputation (at once on the first call).
  template <class Compute>
  Duration Get(TimePoint now, const Duration& refresh, Compute&& compute) const noexcept {
    const Duration::rep t = now.time_since_epoch().count();
    Duration::rep due = refresh_at_.load(std::memory_order_acquire);
    if (t >= due && refresh_at_.compare_exchange_strong(due, SaturatingAdd(now, refresh).time_since_epoch().count())) {
      value_.store(compute(now).count(), std::memory_order_release);
    }
    return Duration(value_.load(std::memory_order_acquire));
  }

 private:
  mutable std::atomic<Duration::rep> value_;
  mutable std::atomic<Duration::rep> refresh_at_{TimePoint::min().time_since_epoch().count()};
};

}  // namespace stormguard::hedge_internal
