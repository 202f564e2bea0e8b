#include "stormguard/guard/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "stormguard/core/duration_format.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr double kMaxRate = 1e9;           // one token per nanosecond
constexpr double kMaxRefillSeconds = 1e8;  // burst / rate: keeps ns math far from overflow
// Automatic striping leaves each stripe at least this much burst, so that a
// thread seldom finds its own stripe empty while others still hold tokens.
constexpr std::int64_t kMinBurstPerStripe = 8;

std::int64_t IntervalNanos(double rate) {
  // The tiny epsilon keeps 1e9 / 3 from rounding 1e9/rate = 1e7 + 1ulp up.
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(1e9 / rate - 1e-6)));
}

// A rate with up to 6 significant digits: "100", "0.5", "1e+09".
std::string FormatRate(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", rate);
  return buf;
}

}  // namespace

std::vector<std::string> RateLimiterOptions::Validate() const {
  Validator v;
  v.Check(std::isfinite(rate) && rate > 0 && rate <= kMaxRate, "rate",
          "must be a number of tokens per second in (0, 1e9]");
  v.Check(burst >= 1, "burst", "must be at least 1");
  v.Check(max_wait >= Duration::zero(), "max_wait", "must not be negative");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be 0 (automatic) or in [1, 64]");
  if (std::isfinite(rate) && rate > 0 && burst >= 1) {
    v.Check(static_cast<double>(burst) / rate <= kMaxRefillSeconds, "burst",
            "burst / rate (the time to refill the bucket) must be at most 1e8 seconds");
  }
  return std::move(v).errors();
}

Result<std::shared_ptr<RateLimiter>> RateLimiter::Create(const RateLimiterOptions& options) {
  Status s = ValidationStatus("rate limiter options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<RateLimiter>(new RateLimiter(options));
}

RateLimiter::RateLimiter(const RateLimiterOptions& o) : o_(o), interval_(IntervalNanos(o.rate)) {
  const int n = ResolveCapacityStripes(o.stripes, o.burst, kMinBurstPerStripe);
  stripe_interval_ = interval_ * n;
  stripes_ = std::make_unique<Stripe[]>(static_cast<std::size_t>(n));
  stripe_mask_ = static_cast<std::size_t>(n) - 1;
  for (int i = 0; i < n; ++i) {
    const int burst = o.burst / n + (i < o.burst % n ? 1 : 0);
    stripes_[i].burst = burst;
    stripes_[i].slack = static_cast<std::int64_t>(burst - 1) * stripe_interval_;
    // Far enough in the past that the bucket starts full, far enough from
    // the minimum that returned tokens cannot underflow.
    stripes_[i].tat.store(std::numeric_limits<std::int64_t>::min() / 2, std::memory_order_relaxed);
  }
}

bool RateLimiter::TakeFrom(Stripe& stripe, std::int64_t now, std::int64_t max_wait, std::int64_t* wait,
                           bool home) noexcept {
  std::int64_t tat = stripe.tat.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t base = std::max(tat, now);
    // The token taken now is due at base + interval; the bucket lets it be
    // used up to `burst` intervals early.
    *wait = std::max<std::int64_t>(base - now - stripe.slack, 0);
    if (*wait > max_wait) return false;
    if (stripe.tat.compare_exchange_weak(tat, base + stripe_interval_, std::memory_order_acq_rel,
                                         std::memory_order_relaxed)) {
      return true;
    }
    if (home) MoveThreadStripe();  // another thread uses this stripe too: spread out
    home = false;
  }
}

bool RateLimiter::Take(std::int64_t now, std::int64_t max_wait, std::int64_t* wait) noexcept {
  // A token available now, from the thread's own stripe first.
  const std::size_t home = ThreadStripe();
  std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
  std::size_t soonest = 0;
  for (std::size_t k = 0; k <= stripe_mask_; ++k) {
    const std::size_t i = (home + k) & stripe_mask_;
    if (TakeFrom(stripes_[i], now, 0, wait, k == 0)) return true;
    if (*wait < shortest) {
      shortest = *wait;
      soonest = i;
    }
  }
  // Else a token that comes later, from the stripe where it comes soonest;
  // others may take it first, so look again (every failure means a stripe's
  // wait has grown past max_wait, so a few rounds settle it).
  for (std::size_t round = 0; shortest <= max_wait && round <= stripe_mask_; ++round) {
    if (TakeFrom(stripes_[soonest], now, max_wait, wait, false)) return true;
    shortest = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i <= stripe_mask_; ++i) {
      const std::int64_t ahead = std::max(stripes_[i].tat.load(std::memory_order_relaxed), now) - now;
      const std::int64_t w = std::max<std::int64_t>(ahead - stripes_[i].slack, 0);
      if (w < shortest) {
        shortest = w;
        soonest = i;
      }
    }
  }
  *wait = shortest;
  return false;
}

Status RateLimiter::Reject(TimePoint now, std::int64_t wait, Duration max_wait) {
  rejected_.fetch_add(1, std::memory_order_relaxed);
  Emit(o_.listener, {.kind = EventKind::kRejected,
                     .policy = PolicyId::kRateLimiter,
                     .reason = "rate limit exceeded",
                     .at = now,
                     .duration = Duration(wait)});
  std::string message = "rate limit " + FormatRate(o_.rate) + "/s";
  if (o_.burst > 1) message += " (burst " + std::to_string(o_.burst) + ")";
  message += " exceeded; next token in " + FormatDuration(Duration(wait)) + ", max wait " + FormatDuration(max_wait);
  RetryHints hints;
  hints.pushback = Duration(wait);
  return Status::ResourceExhausted(std::move(message)).WithSource(kPolicy).WithHints(std::move(hints));
}

Status RateLimiter::TryAcquire(TimePoint now) {
  std::int64_t wait = 0;
  const std::int64_t t = now.time_since_epoch().count();
  if (Take(t, 0, &wait)) return Status::Ok();
  return Reject(now, wait, Duration::zero());
}

Result<Duration> RateLimiter::Reserve(TimePoint now, Duration max_wait) {
  std::int64_t wait = 0;
  if (Take(now.time_since_epoch().count(), std::max(max_wait, Duration::zero()).count(), &wait)) {
    return Duration(wait);
  }
  return Reject(now, wait, max_wait);
}

void RateLimiter::CancelReservation() noexcept {
  // Moving tat back by one interval is exactly one token more in the stripe;
  // a tat already in the past changes nothing, the stripe is full anyway.
  stripes_[ThreadStripe() & stripe_mask_].tat.fetch_sub(stripe_interval_, std::memory_order_acq_rel);
}

Status RateLimiter::Cancelled(bool during_wait) {
  return Status::Cancelled(during_wait ? "rate limiter: wait for a token cancelled"
                                       : "rate limiter: cancelled before waiting")
      .WithSource(kPolicy);
}

Status RateLimiter::EndWait(bool stopped) {
  if (!stopped) return Status::Ok();
  CancelReservation();
  return Cancelled(true);
}

Status RateLimiter::Acquire(Clock& clock, std::stop_token stop) {
  if (stop.stop_requested()) return Cancelled(false);
  const TimePoint now = clock.Now();
  Result<Duration> wait = Reserve(now, o_.max_wait);
  if (!wait.ok()) return std::move(wait).status();
  if (*wait <= Duration::zero()) return Status::Ok();
  return EndWait(!clock.SleepUntil(now + *wait, std::move(stop)));
}

double RateLimiter::AvailableTokens(TimePoint now) const noexcept {
  const std::int64_t t = now.time_since_epoch().count();
  double tokens = 0;
  for (std::size_t i = 0; i <= stripe_mask_; ++i) {
    const Stripe& stripe = stripes_[i];
    const std::int64_t ahead = std::max<std::int64_t>(stripe.tat.load(std::memory_order_relaxed) - t, 0);
    tokens += std::clamp(stripe.burst - static_cast<double>(ahead) / static_cast<double>(stripe_interval_), 0.0,
                         stripe.burst);
  }
  return tokens;
}

}  // namespace stormguard
