// The fallback stage's asynchronous form: the same decisions as Execute;
// the call site's fallback is a plain function, run where the call ends.
#include "stormguard/pipeline/stages/fallback_stage.h"

namespace stormguard {

void FallbackStage::Start(AsyncStep step) const {
  const CallContext& ctx = step.ctx();
  if (MaySkip(ctx)) {
    const TimePoint now = step.clock().Now();
    if (SkipsAt(ctx, now)) {
      Status why = Skip(ctx, step.has_fallback(), now);
      return step.Finish(step.has_fallback() ? step.Fallback(why) : std::move(why));
    }
  }
  step.RunInner();
}

void FallbackStage::Resume(AsyncStep step, Status inner) const {
  std::string_view reason;
  if (inner.ok() || !step.has_fallback() || !Triggers(inner, &reason)) return step.Finish(std::move(inner));
  if (listener_ != nullptr) ReportFallback(step.ctx(), inner, reason, step.clock().Now());
  step.Finish(step.Fallback(inner));
}

}  // namespace stormguard
