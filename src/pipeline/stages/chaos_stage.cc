#include "stormguard/pipeline/stages/chaos_stage.h"

#include <algorithm>

#include "stormguard/core/duration_format.h"

namespace stormguard {

Result<std::unique_ptr<ChaosStage>> ChaosStage::Create(std::shared_ptr<ChaosPolicy> policy, Clock& clock,
                                                       ChaosStageOptions options) {
  if (policy == nullptr) return Status::InvalidArgument("chaos: policy must not be null");
  return std::unique_ptr<ChaosStage>(new ChaosStage(std::move(policy), clock, std::move(options)));
}

std::string ChaosStage::Describe() const {
  const ChaosOptions& o = policy_->options();
  std::string s = "chaos(" + std::string(ChaosKindName(o.kind));
  if (o.kind == ChaosKind::kLatency) s += " " + FormatDuration(o.latency);
  return s + ")";
}

Status ChaosStage::DelayCut(const CallContext& ctx, TimePoint now) {
  if (ctx.stop.stop_requested()) {
    return Status::Cancelled("chaos: cancelled during an injected delay").WithSource(ChaosPolicy::kPolicy);
  }
  if (!ctx.deadline.Expired(now)) return Status::Ok();
  Status s =
      Status::DeadlineExceeded("chaos: the deadline passed during an injected delay").WithSource(ChaosPolicy::kPolicy);
  s.mutable_hints().outcome = OutcomeClass::kDeadlineExceeded;
  return s;
}

Status ChaosStage::Execute(CallContext& ctx, Next next) const {
  const ChaosDecision d = policy_->Decide(clock_, ctx.attempt);
  if (!d.inject) return next(ctx);
  switch (policy_->kind()) {
    case ChaosKind::kError: return policy_->InjectedStatus();
    case ChaosKind::kOutcome:
      next(ctx);  // the work runs; its answer is lost
      return policy_->InjectedStatus();
    case ChaosKind::kLatency: break;
  }
  // Never parks past the deadline; the stop ends the wait at once.
  const TimePoint until = std::min(SaturatingAdd(clock_.Now(), d.delay), ctx.deadline.time());
  clock_.SleepUntil(until, ctx.stop);
  next.ForgetNow();
  Status cut = DelayCut(ctx, clock_.Now());
  if (!cut.ok()) return cut;
  return next(ctx);
}

}  // namespace stormguard
