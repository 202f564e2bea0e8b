// stormguard/guard/rate_limiter.h: a token bucket that refuses with a reason.
//
// `rate` tokens per second refill continuously; the bucket holds at most
// `burst` tokens and starts full. burst = 1 is a smooth limiter (calls are
// spaced 1/rate apart); burst > 1 lets an idle client send `burst` calls at
// once. A call may wait for its token up to a maximum (`max_wait`, 0 by
// default: refuse at once).
//
//   std::unique_ptr<RateLimiter> limiter =
//       std::move(RateLimiter::Create({.rate = 100, .burst = 10})).value();
//   if (Status s = limiter->TryAcquire(clock.Now()); !s.ok()) return s;
//   // s: RESOURCE_EXHAUSTED "rate limit 100/s (burst 10) exceeded; next token
//   //    in 3.2ms, max wait 0" [rate_limiter]
//
//   Result<Duration> wait = limiter->Reserve(now, 50ms);   // a token is held
//   if (wait.ok() && !clock.SleepFor(*wait, stop)) limiter->CancelReservation();
//
// How: GCRA (the ATM "virtual scheduling" form of a token bucket). The whole
// state is one atomic integer, the theoretical arrival time `tat`: the time
// at which the bucket would be full again. Taking a token moves it to
// max(tat, now) + 1/rate, allowed while that stays within burst/rate of now.
// Waiting callers are therefore served in the order they reserved, and a
// rejection knows exactly when the next token comes.
//
// Precision: the interval between tokens is ceil(1e9 / rate) nanoseconds, so
// the limiter never exceeds `rate`; for rates that divide 1e9 the accounting
// is exact.
//
// Thread safety: every method is thread-safe and lock-free (one CAS on the
// success path). Cancellation: Reserve and TryAcquire never block; Acquire
// sleeps on the given Clock and gives its token back when `stop` fires.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct RateLimiterOptions {
  // Tokens per second, in (0, 1e9]. No default: every destination has its own.
  double rate = 0;
  // Bucket capacity in tokens, >= 1 (1 = smooth).
  int burst = 1;
  // How long Acquire() may wait for a token; 0 refuses at once.
  Duration max_wait = Duration::zero();
  // Receives kRejected events (policy "rate_limiter"); may be null.
  Listener* listener = nullptr;

  std::vector<std::string> Validate() const;
};

class RateLimiter {
 public:
  static constexpr std::string_view kPolicy = "rate_limiter";

  // Validates; INVALID_ARGUMENT names every bad field.
  static Result<std::unique_ptr<RateLimiter>> Create(const RateLimiterOptions& options);

  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  const RateLimiterOptions& options() const noexcept { return o_; }
  Duration interval() const noexcept { return Duration(interval_); }

  // Takes a token if one is available now; never waits. The rejection is
  // RESOURCE_EXHAUSTED from "rate_limiter" with the time to the next token
  // (also in hints().pushback, like Polly's RetryAfter).
  Status TryAcquire(TimePoint now);

  // Takes the next token even if it only comes later: returns how long the
  // caller must wait before using it (zero when available now), or the
  // rejection when that is longer than `max_wait`. A caller that gives up
  // before its wait ends must call CancelReservation().
  Result<Duration> Reserve(TimePoint now, Duration max_wait);

  // Gives back one token taken by Reserve (or TryAcquire) and not used.
  void CancelReservation() noexcept;

  // The blocking form: Reserve(now, options.max_wait), then sleep on `clock`.
  // CANCELLED (and the token given back) when `stop` fires during the wait.
  Status Acquire(Clock& clock, std::stop_token stop = {});

  // Tokens in the bucket at `now`, in [0, burst] (fractions while refilling).
  double AvailableTokens(TimePoint now) const noexcept;

  std::int64_t rejected() const noexcept { return rejected_.load(std::memory_order_relaxed); }

 private:
  explicit RateLimiter(const RateLimiterOptions& o) noexcept;

  // Takes a token whose wait is <= max_wait; false (and the wait it would
  // need in *wait) otherwise.
  bool Take(std::int64_t now, std::int64_t max_wait, std::int64_t* wait) noexcept;
  Status Reject(TimePoint now, std::int64_t wait, Duration max_wait);

  RateLimiterOptions o_;
  std::int64_t interval_;  // ns per token
  std::int64_t slack_;     // (burst - 1) * interval: how far tat may run ahead of now
  std::atomic<std::int64_t> tat_;
  std::atomic<std::int64_t> rejected_{0};
};

}  // namespace stormguard
