#include "stormguard/pipeline/stages/bulkhead_stage.h"

#include <string>

namespace stormguard {

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

}  // namespace stormguard
