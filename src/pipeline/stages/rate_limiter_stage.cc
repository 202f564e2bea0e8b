#include "stormguard/pipeline/stages/rate_limiter_stage.h"

#include <string>

namespace stormguard {

std::string RateLimiterStage::Describe() const {
  const RateLimiterOptions& o = limiter_->options();
  return "rate_limiter(" + std::to_string(static_cast<long long>(o.rate)) + "/s, burst " +
         std::to_string(o.burst) + ")";
}

// Inlined into Execute, where it is the one prvalue a success returns.
[[gnu::always_inline]] inline Status RateLimiterStage::Attempt(CallContext& ctx, Next next) const {
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) limiter_->CancelReservation();  // refused further in: unused
  return s;
}

// The success path builds no Status of its own: a token from the thread's
// stripe needs none, and Attempt's one named result is the caller's.
Status RateLimiterStage::Execute(CallContext& ctx, Next next) const {
  const bool may_wait = limiter_->options().max_wait > Duration::zero();
  if (may_wait || !limiter_->TryTakeFromOwnStripe(next.Now())) [[unlikely]] {
    Status admitted = may_wait ? limiter_->Acquire(clock_, ctx.stop) : limiter_->TryAcquire(next.Now());
    if (!admitted.ok()) return admitted;
    if (may_wait) next.ForgetNow();
  }
  return Attempt(ctx, next);
}

}  // namespace stormguard
