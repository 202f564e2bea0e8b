// stormguard/fleet/lease_bucket.h: a token bucket whose rate may change while in use.
//
// The local half of a fleet-wide limit: calls spend tokens here at the rate
// the current lease grants, and the refresher changes that rate once a
// refresh interval. The accounting is RateLimiter's (guard/rate_limiter.h):
// GCRA, one atomic "theoretical arrival time" per stripe, one CAS on the
// calling thread's stripe per token, stripes on their own cache lines. What
// differs is that the interval between tokens and the burst are atomics the
// refresher rewrites; SetRate keeps each stripe's fill level (the tokens it
// owes) across the change, so a new rate neither refills nor drains it.
//
// Rate 0 admits nothing. The burst is split evenly over the stripes, rounded
// up: a bucket of n stripes lets up to burst + n - 1 calls through at once.
//
// Thread safety: TryAcquire from any thread, lock-free; SetRate from one
// thread at a time (the refresher), concurrently with TryAcquire (a call
// racing a change may be admitted under either rate).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "stormguard/core/striped_counter.h"
#include "stormguard/core/time.h"

namespace stormguard {

class LeaseBucket {
 public:
  // `stripes` as RateLimiterOptions::stripes (0: automatic for `max_burst`).
  LeaseBucket(int stripes, std::int64_t max_burst);

  // A token now from the thread's stripe, else from any other; false if none.
  bool TryAcquire(TimePoint now) noexcept;

  // Tokens per second (>= 0, finite) and burst (>= 1) from now on.
  void SetRate(double rate, std::int64_t burst, TimePoint now) noexcept;

  double rate() const noexcept { return rate_.load(std::memory_order_relaxed); }
  int stripes() const noexcept { return static_cast<int>(mask_ + 1); }

 private:
  struct alignas(kCacheLineSize) Stripe {
    std::atomic<std::int64_t> tat{0};
  };
  // How often a stripe hands out a token, and how far its tat may run ahead
  // of now; read together, written together by SetRate.
  struct alignas(kCacheLineSize) Shape {
    std::atomic<std::int64_t> interval{0};
    std::atomic<std::int64_t> slack{0};
  };

  bool TakeFrom(Stripe& stripe, std::int64_t now, std::int64_t interval, std::int64_t slack) noexcept;

  Shape shape_;
  std::unique_ptr<Stripe[]> stripes_;
  std::size_t mask_;
  std::atomic<double> rate_{0};
};

}  // namespace stormguard
