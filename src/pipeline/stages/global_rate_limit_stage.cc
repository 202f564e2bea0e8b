// Both forms of the global rate limit stage: a token now or the refusal;
// there is nothing to wait for and nothing to settle afterwards.
#include "stormguard/pipeline/stages/global_rate_limit_stage.h"

#include <cstdio>
#include <string>

namespace stormguard {

std::string GlobalRateLimitStage::Describe() const {
  char limit[48];
  std::snprintf(limit, sizeof limit, "%g/s", limiter_->options().limit);
  return "global_rate_limit(" + limiter_->options().name + ", " + limit + " for the fleet)";
}

Status GlobalRateLimitStage::Execute(CallContext& ctx, Next next) const {
  if (!limiter_->TryTake(next.CheapNow())) [[unlikely]]
    return limiter_->Refuse(next.CheapNow());
  return next(ctx);
}

void GlobalRateLimitStage::Start(AsyncStep step) const {
  if (!limiter_->TryTake(step.CheapNow())) [[unlikely]]
    return step.Finish(limiter_->Refuse(step.CheapNow()));
  step.RunInner();
}

}  // namespace stormguard
