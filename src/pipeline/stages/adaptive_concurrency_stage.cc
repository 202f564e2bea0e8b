#include "stormguard/pipeline/stages/adaptive_concurrency_stage.h"

#include <string>

namespace stormguard {

std::string AdaptiveConcurrencyStage::Describe() const {
  return "adaptive_concurrency(" + std::string(limiter_->algorithm_name()) + ")";
}

Status AdaptiveConcurrencyStage::Execute(CallContext& ctx, Next next) const {
  Result<AdaptiveLimiter::Token> token = limiter_->TryAcquire(next.Now());
  if (!token.ok()) return std::move(token).status();
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) return s;  // the token's destructor ignores it
  Sample(*token, s, next.Now());
  return s;
}

void AdaptiveConcurrencyStage::Sample(AdaptiveLimiter::Token& token, const Status& s, TimePoint now) const {
  switch (classifier_.Classify(s)) {
    case OutcomeClass::kSuccess: token.OnSuccess(now); break;
    case OutcomeClass::kOverloaded:
    case OutcomeClass::kAmbiguous:
    case OutcomeClass::kDeadlineExceeded: token.OnDropped(now); break;
    default: token.OnIgnore();
  }
}

}  // namespace stormguard
