#include "stormguard/pipeline/stages/guard_stages.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace stormguard {

CircuitBreakerStage::CircuitBreakerStage(std::shared_ptr<CircuitBreaker> breaker,
                                         const Classifier& classifier) noexcept
    : breaker_(std::move(breaker)),
      classifier_(classifier),
      coarse_(breaker_->options().slow_call_duration >= std::chrono::milliseconds(500)) {}

std::string CircuitBreakerStage::Describe() const {
  const CircuitBreakerOptions& o = breaker_->options();
  return "circuit_breaker(" + std::to_string(std::lround(o.failure_rate_threshold * 100)) + "% of " +
         std::to_string(o.window_size) + (o.window_kind == WindowKind::kCountBased ? " calls" : "s") + ")";
}

Status CircuitBreakerStage::Execute(CallContext& ctx, Next next) const {
  const TimePoint start = Time(next);
  Status admitted = breaker_->Acquire(start);
  if (!admitted.ok()) return admitted;
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) {  // refused further in: the dependency was never asked
    breaker_->ReleasePermission();
    return s;
  }
  const TimePoint end = Time(next);
  breaker_->OnResult(classifier_.Classify(s), std::max(end - start, Duration::zero()), end);
  return s;
}

std::string BulkheadStage::Describe() const {
  return "bulkhead(" + std::to_string(bulkhead_->options().max_concurrent) + ")";
}

Status BulkheadStage::Execute(CallContext& ctx, Next next) const {
  const bool may_wait = bulkhead_->options().max_wait > Duration::zero();
  Result<BulkheadPermit> permit =
      may_wait ? bulkhead_->Acquire(clock_, ctx.stop) : bulkhead_->TryAcquire(next.CheapNow());
  if (!permit.ok()) return std::move(permit).status();
  if (may_wait) next.ForgetNow();
  return next(ctx);  // the permit goes back only when the attempt has really ended
}

std::string RateLimiterStage::Describe() const {
  const RateLimiterOptions& o = limiter_->options();
  return "rate_limiter(" + std::to_string(static_cast<long long>(o.rate)) + "/s, burst " +
         std::to_string(o.burst) + ")";
}

Status RateLimiterStage::Execute(CallContext& ctx, Next next) const {
  const bool may_wait = limiter_->options().max_wait > Duration::zero();
  Status admitted = may_wait ? limiter_->Acquire(clock_, ctx.stop) : limiter_->TryAcquire(next.Now());
  if (!admitted.ok()) return admitted;
  if (may_wait) next.ForgetNow();
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) limiter_->CancelReservation();  // refused further in: unused
  return s;
}

std::string AdaptiveConcurrencyStage::Describe() const {
  return "adaptive_concurrency(" + std::string(limiter_->algorithm_name()) + ")";
}

Status AdaptiveConcurrencyStage::Execute(CallContext& ctx, Next next) const {
  Result<AdaptiveLimiter::Token> token = limiter_->TryAcquire(next.Now());
  if (!token.ok()) return std::move(token).status();
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) return s;  // the token's destructor ignores it
  switch (classifier_.Classify(s)) {
    case OutcomeClass::kSuccess:
      token->OnSuccess(next.Now());
      break;
    case OutcomeClass::kOverloaded:
    case OutcomeClass::kAmbiguous:
    case OutcomeClass::kDeadlineExceeded:
      token->OnDropped(next.Now());
      break;
    default:
      token->OnIgnore();
  }
  return s;
}

}  // namespace stormguard
