// stormguard/guard/rate_limiter.h: a token bucket that refuses with a reason.
//
// `rate` tokens per second refill continuously; the bucket holds at most
// `burst` tokens and starts full. burst = 1 is a smooth limiter (calls are
// spaced 1/rate apart); burst > 1 lets an idle client send `burst` calls at
// once. A call may wait for its token up to a maximum (`max_wait`, 0 by
// default: refuse at once).
//
//   std::shared_ptr<RateLimiter> limiter = RateLimiter::Create({.rate = 100, .burst = 10}).value();
//   if (Status s = limiter->TryAcquire(clock.Now()); !s.ok()) return s;
//   // s: RESOURCE_EXHAUSTED "rate limit 100/s (burst 10) exceeded; next token
//   //    in 3.2ms, max wait 0s" [rate_limiter]
//
//   Result<Duration> wait = limiter->Reserve(now, 50ms);   // a token is held
//   if (wait.ok() && !clock.SleepFor(*wait, stop)) limiter->CancelReservation();
//
// How: GCRA (the ATM "virtual scheduling" form of a token bucket). A
// bucket's whole state is one atomic integer, the theoretical arrival time
// `tat`: the time at which it would be full again. Taking a token moves it
// to max(tat, now) + 1/rate, allowed while that stays within burst/rate of
// now. Waiting callers are therefore served in the order they reserved, and
// a rejection knows exactly when the next token comes.
//
// Striping: one atomic written by every call on every core would make two
// threads slower than one. A large bucket (burst >= 16 with the automatic
// setting) is therefore split into stripes, one per hardware thread, each a
// GCRA bucket on its own cache line with rate/n and burst/n. A caller takes
// from its thread's stripe and, when that is empty, from any other, so one
// thread alone still gets the full rate and burst, and the limiter as a
// whole never admits more than burst + rate * t in any t. The price: once
// drained, stripes refill side by side, so tokens come n at a time every
// n/rate instead of one every 1/rate (still within the declared burst). A
// smooth limiter (burst 1) or stripes = 1 keeps the single exact bucket.
//
// Precision: the interval between tokens is ceil(1e9 / rate) nanoseconds, so
// the limiter never exceeds `rate`; for rates that divide 1e9 the accounting
// is exact.
//
// Thread safety: every method is thread-safe and lock-free (one CAS on the
// thread's stripe on the success path). Cancellation: Reserve and TryAcquire
// never block; Acquire sleeps on the given Clock and gives its token back
// when `stop` fires.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/core/striped_counter.h"
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
  // Stripes (see Striping): 0 = automatic (at least 8 tokens of burst each),
  // 1 = one exact bucket, else rounded up to a power of two (at most 64) and
  // lowered until every stripe holds a token of burst.
  int stripes = 0;

  std::vector<std::string> Validate() const;
};

class RateLimiter {
 public:
  static constexpr std::string_view kPolicy = "rate_limiter";

  // Validates; INVALID_ARGUMENT names every bad field. Shared: one limiter
  // guards a destination for every pipeline and thread that calls it.
  static Result<std::shared_ptr<RateLimiter>> Create(const RateLimiterOptions& options);

  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  const RateLimiterOptions& options() const noexcept { return o_; }
  // The time between two tokens of the whole limiter.
  Duration interval() const noexcept { return Duration(interval_); }
  int stripes() const noexcept { return static_cast<int>(stripe_mask_ + 1); }

  // Takes a token if one is available now; never waits. The rejection is
  // RESOURCE_EXHAUSTED from "rate_limiter" with the time to the next token
  // (also in hints().pushback, like Polly's RetryAfter).
  Status TryAcquire(TimePoint now);
  // TryAcquire's fast path: a token available now in the calling thread's
  // own stripe, with no Status to build. False says nothing about the other
  // stripes and reports nothing: ask TryAcquire then.
  bool TryTakeFromOwnStripe(TimePoint now) noexcept {
    Stripe& stripe = stripes_[ThreadStripe() & stripe_mask_];
    const std::int64_t t = now.time_since_epoch().count();
    std::int64_t tat = stripe.tat.load(std::memory_order_relaxed);
    const std::int64_t base = std::max(tat, t);
    // One try: an empty stripe or a lost race takes TryAcquire's way.
    return base - t <= stripe.slack &&
           stripe.tat.compare_exchange_strong(tat, base + stripe_interval_, std::memory_order_acq_rel,
                                              std::memory_order_relaxed);
  }

  // Takes the next token even if it only comes later: returns how long the
  // caller must wait before using it (zero when available now), or the
  // rejection when that is longer than `max_wait`. A caller that gives up
  // before its wait ends must call CancelReservation().
  Result<Duration> Reserve(TimePoint now, Duration max_wait);

  // Gives back one token taken by Reserve (or TryAcquire) and not used. Call
  // it from the thread that took the token: it goes back to that thread's
  // stripe, and is dropped if that stripe is full (never more than burst).
  void CancelReservation() noexcept;

  // The blocking form: Reserve(now, options.max_wait), then sleep on `clock`.
  // CANCELLED (and the token given back) when `stop` fires during the wait.
  Status Acquire(Clock& clock, std::stop_token stop = {});
  // Acquire's CANCELLED answer, before or during its wait (for drivers that wait elsewhere).
  static Status Cancelled(bool during_wait);
  // The answer to the wait for a token Reserve took: OK when the wait ran
  // its course, CANCELLED with the token given back when the caller stopped
  // it. Every driver ends its wait here: Acquire's sleep, the asynchronous
  // stage's timer.
  Status EndWait(bool stopped);

  // Tokens in the bucket at `now`, in [0, burst] (fractions while refilling).
  double AvailableTokens(TimePoint now) const noexcept;

  std::int64_t rejected() const noexcept { return rejected_.load(std::memory_order_relaxed); }

 private:
  // One GCRA bucket; stripe i holds its share of the burst.
  struct alignas(kCacheLineSize) Stripe {
    std::atomic<std::int64_t> tat{0};
    std::int64_t slack = 0;  // (its burst - 1) * stripe interval: how far tat may run ahead of now
    double burst = 0;
  };

  explicit RateLimiter(const RateLimiterOptions& o);

  // Takes a token whose wait is <= max_wait, from the stripe with the
  // shortest wait (the thread's own first); false (and the shortest wait
  // there is in *wait) otherwise.
  bool Take(std::int64_t now, std::int64_t max_wait, std::int64_t* wait) noexcept;
  // One stripe: takes a token if its wait is <= max_wait; else false with that wait.
  bool TakeFrom(Stripe& stripe, std::int64_t now, std::int64_t max_wait, std::int64_t* wait, bool home) noexcept;
  Status Reject(TimePoint now, std::int64_t wait, Duration max_wait);

  RateLimiterOptions o_;
  std::int64_t interval_;         // ns per token, whole limiter
  std::int64_t stripe_interval_;  // ns per token of one stripe: interval_ * stripes
  std::unique_ptr<Stripe[]> stripes_;
  std::size_t stripe_mask_;
  std::atomic<std::int64_t> rejected_{0};
};

}  // namespace stormguard
