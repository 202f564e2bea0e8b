#include "stormguard/retry/retry_driver.h"

namespace stormguard::retry_internal {

void RecordAttempt(const RetryPolicy& p, OutcomeClass outcome, TimePoint now) noexcept {
  RetryBudget* budget = p.budget();
  if (budget == nullptr || outcome == OutcomeClass::kCancelled) return;
  // A failure is what says the destination is unhealthy: an outcome a retry
  // would address, or a downstream that already gave up. A permanent error
  // is a healthy server answering "no".
  if (p.options().retry_on.contains(outcome) || outcome == OutcomeClass::kDoNotRetry) {
    budget->RecordFailure(now);
  } else {
    budget->RecordSuccess(now);
  }
}

void Emit(const RetryPolicy& p, EventKind kind, std::string_view reason, TimePoint now, int attempt,
          OutcomeClass outcome, Duration d) noexcept {
  Listener* l = p.options().listener;
  if (l == nullptr) return;
  l->OnEvent(Event{.kind = kind, .policy = "retry", .reason = reason, .at = now,
                   .attempt = attempt, .outcome = outcome, .duration = d});
}

bool GivesUpForTheChain(const RetryPolicy& p, StopReason reason) noexcept {
  if (reason == StopReason::kDownstreamGaveUp) return true;
  if (p.options().max_attempts <= 1) return false;
  switch (reason) {
    case StopReason::kAttemptsExhausted:
    case StopReason::kPushbackStop:
    case StopReason::kDeadline:
    case StopReason::kBudgetExhausted:
      return true;
    default:
      return false;
  }
}

void MarkGaveUp(Status& status, CallContext& ctx) noexcept {
  status.mutable_hints().do_not_retry = true;
  ctx.downstream_gave_up = true;
}

}  // namespace stormguard::retry_internal
