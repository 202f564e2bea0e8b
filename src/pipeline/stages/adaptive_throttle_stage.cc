#include "stormguard/pipeline/stages/adaptive_throttle_stage.h"

#include <cstdio>
#include <string>

namespace stormguard {

std::string AdaptiveThrottleStage::Describe() const {
  char k[32];
  std::snprintf(k, sizeof(k), "%g", throttle_->options().k);
  return "adaptive_throttle(k " + std::string(k) + ")";
}

void AdaptiveThrottleStage::Settle(bool reached, const Status& s, TimePoint now) const noexcept {
  if (reached) {
    throttle_->Record(now, classifier_.Classify(s));
  } else {
    throttle_->Forget(now);
  }
}

Status AdaptiveThrottleStage::Execute(CallContext& ctx, Next next) const {
  if (Status refused = throttle_->Admit(next.CheapNow()); !refused.ok()) return refused;
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  Settle(next.calls() != before, s, next.CheapNow());
  return s;
}

}  // namespace stormguard
