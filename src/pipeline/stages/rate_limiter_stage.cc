#include "stormguard/pipeline/stages/rate_limiter_stage.h"

#include <string>

namespace stormguard {

std::string RateLimiterStage::Describe() const {
  const RateLimiterOptions& o = limiter_->options();
  return "rate_limiter(" + std::to_string(static_cast<long long>(o.rate)) + "/s, burst " + std::to_string(o.burst) +
         ")";
}

// Inlined into Execute, where it is the one prvalue a success returns.
[[gnu::always_inline]] inline Status RateLimiterStage::Attempt(CallContext& ctx, Next next) const {
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) limiter_->CancelReservation();  // refused further in: unused
  return s;
}

Result<Duration> RateLimiterStage::Admit(TimePoint now, const std::stop_token& stop) const {
  const Duration max_wait = limiter_->options().max_wait;
  if (max_wait <= Duration::zero()) {
    Status s = limiter_->TryAcquire(now);
    if (!s.ok()) return s;
    return Duration::zero();
  }
  if (stop.stop_requested()) return RateLimiter::Cancelled(false);
  return limiter_->Reserve(now, max_wait);
}

// The success path builds no Status of its own: a token from the thread's
// stripe needs none, and Attempt's one named result is the caller's.
// Otherwise Admit decides, and a reserved token is waited for on the clock.
Status RateLimiterStage::Execute(CallContext& ctx, Next next) const {
  const bool may_wait = limiter_->options().max_wait > Duration::zero();
  if (may_wait || !limiter_->TryTakeFromOwnStripe(next.Now())) [[unlikely]] {
    const TimePoint now = next.Now();
    Result<Duration> wait = Admit(now, ctx.stop);
    if (!wait.ok()) return std::move(wait).status();
    if (*wait > Duration::zero()) {
      Status waited = limiter_->EndWait(!clock_.SleepUntil(now + *wait, ctx.stop));
      if (!waited.ok()) return waited;
      next.ForgetNow();
    }
  }
  return Attempt(ctx, next);
}

}  // namespace stormguard
