// The idempotency-key stage's asynchronous form: one check on the way in.
#include "stormguard/pipeline/stages/idempotency_key_stage.h"

namespace stormguard {

void IdempotencyKeyStage::Start(AsyncStep step) const {
  if (!step.ctx().idempotency_key.empty()) return step.RunInner();
  step.Finish(Refuse(step.ctx(), step.clock().Now()));
}

void IdempotencyKeyStage::Resume(AsyncStep step, Status inner) const { step.Finish(std::move(inner)); }

}  // namespace stormguard
