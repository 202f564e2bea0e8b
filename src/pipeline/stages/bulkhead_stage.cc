#include "stormguard/pipeline/stages/bulkhead_stage.h"

#include <string>

namespace stormguard {

std::string BulkheadStage::Describe() const {
  return "bulkhead(" + std::to_string(bulkhead_->options().max_concurrent) + ")";
}

// A free slot on the success path is a plain permit: no Result to build.
Status BulkheadStage::Execute(CallContext& ctx, Next next) const {
  const bool may_wait = bulkhead_->options().max_wait > Duration::zero();
  BulkheadPermit permit = may_wait ? BulkheadPermit() : bulkhead_->TryTakeSlot();
  if (!permit.valid()) [[unlikely]] {
    Result<BulkheadPermit> r = may_wait ? bulkhead_->Acquire(clock_, ctx.stop) : bulkhead_->TryAcquire(next.CheapNow());
    if (!r.ok()) return std::move(r).status();
    permit = std::move(r).value();
    if (may_wait) next.ForgetNow();
  }
  return next(ctx);  // the permit goes back only when the attempt has really ended
}

}  // namespace stormguard
