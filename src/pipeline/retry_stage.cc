#include "stormguard/pipeline/retry_stage.h"

#include "stormguard/retry/retry_driver.h"

namespace stormguard {

std::string RetryStage::Describe() const {
  const RetryOptions& o = policy_.options();
  std::string s = "retry(" + std::to_string(o.max_attempts) + " attempts";
  if (o.budget != nullptr) s += ", budget " + std::string(o.budget->name());
  return s + ")";
}

Status RetryStage::Execute(CallContext& ctx, Next next) const {
  bool retrying = false;
  return ExecuteWithRetry(
      policy_, ctx,
      [next, &retrying](CallContext& attempt) {
        if (retrying) next.ForgetNow();  // a retry follows a backoff wait
        retrying = true;
        return next(attempt);
      },
      clock_, ThreadLocalRandom());
}

Status IdempotencyKeyStage::Execute(CallContext& ctx, Next next) const {
  if (!ctx.idempotency_key.empty()) [[likely]] return next(ctx);
  if (listener_ != nullptr) {
    Emit(listener_, Event{.kind = EventKind::kRejected, .policy = name(), .reason = "missing_key",
                          .at = next.Now(), .attempt = ctx.attempt, .outcome = OutcomeClass::kPermanent});
  }
  return Status::FailedPrecondition("idempotency_key: this call needs ctx.idempotency_key").WithSource(name());
}

}  // namespace stormguard
