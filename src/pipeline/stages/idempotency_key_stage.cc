#include "stormguard/pipeline/stages/idempotency_key_stage.h"

namespace stormguard {

Status IdempotencyKeyStage::Execute(CallContext& ctx, Next next) const {
  if (!ctx.idempotency_key.empty()) [[likely]]
    return next(ctx);
  return Refuse(ctx, next.Now());
}

Status IdempotencyKeyStage::Refuse(const CallContext& ctx, TimePoint now) const {
  if (listener_ != nullptr) {
    Emit(listener_, Event{.kind = EventKind::kRejected,
                          .policy = PolicyId::kIdempotencyKey,
                          .reason = "missing_key",
                          .at = now,
                          .attempt = ctx.attempt,
                          .outcome = OutcomeClass::kPermanent});
  }
  return Status::FailedPrecondition("idempotency_key: this call needs ctx.idempotency_key").WithSource(name());
}

}  // namespace stormguard
