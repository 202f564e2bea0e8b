#include "stormguard/retry/retry_session.h"

#include "stormguard/core/internal/call_helpers.h"

namespace stormguard {
namespace {

// A failure is what says the destination is unhealthy: an outcome a retry
// would address, or a downstream that already gave up. A permanent error is
// a healthy server answering "no"; a cancelled attempt says nothing.
void RecordAttempt(const RetryPolicy& p, OutcomeClass outcome, TimePoint now) noexcept {
  RetryBudget* budget = p.budget();
  if (budget == nullptr || outcome == OutcomeClass::kCancelled) return;
  if (p.options().retry_on.contains(outcome) || outcome == OutcomeClass::kDoNotRetry) {
    budget->RecordFailure(now);
  } else {
    budget->RecordSuccess(now);
  }
}

void Report(const RetryPolicy& p, EventKind kind, std::string_view reason, TimePoint now, int attempt,
            OutcomeClass outcome, Duration d) noexcept {
  Emit(p.options().listener, Event{.kind = kind,
                                   .policy = PolicyId::kRetry,
                                   .reason = reason,
                                   .at = now,
                                   .attempt = attempt,
                                   .outcome = outcome,
                                   .duration = d});
}

}  // namespace

RetryDecision RetrySession::OnAttemptEnd(Status& status, OutcomeClass outcome, CallContext& ctx, TimePoint now,
                                         TimePoint coarse_now, Duration latency, Random& rng) noexcept {
  const RetryPolicy& p = *policy_;
  RetryBudget* budget = p.budget();
  RecordAttempt(p, outcome, coarse_now);
  if (outcome == OutcomeClass::kDoNotRetry) ctx.downstream_gave_up = true;
  if (ctx.attempt > first_attempt_ && budget != nullptr) budget->OnRetryEnd(coarse_now);
  Report(p, EventKind::kAttemptEnded, {}, now, ctx.attempt, outcome, latency);

  const RetryDecision d = p.Decide(outcome, status, ctx, now, previous_wait_, rng);
  if (d.retry) {
    Report(p, EventKind::kRetryScheduled, {}, now, ctx.attempt, outcome, d.wait);
    previous_wait_ = d.wait;
    return d;
  }
  if (GivesUpForTheChain(p, d.reason)) core_internal::MarkGaveUp(status, ctx);
  if (d.reason != StopReason::kSucceeded) {
    Report(p, EventKind::kGaveUp, StopReasonName(d.reason), now, ctx.attempt, outcome, Duration::zero());
  }
  if (budget != nullptr) budget->OnRequestEnd(coarse_now);
  ctx.attempt = first_attempt_;
  return d;
}

Status RetrySession::OnWaitCancelled(CallContext& ctx, TimePoint coarse_now) noexcept {
  if (RetryBudget* budget = policy_->budget()) {
    budget->OnRetryEnd(coarse_now);  // the granted retry never ran
    budget->OnRequestEnd(coarse_now);
  }
  ctx.attempt = first_attempt_;
  return Status::Cancelled("cancelled while waiting to retry");
}

bool GivesUpForTheChain(const RetryPolicy& p, StopReason reason) noexcept {
  if (reason == StopReason::kDownstreamGaveUp) return true;
  if (p.options().max_attempts <= 1) return false;
  switch (reason) {
    case StopReason::kAttemptsExhausted:
    case StopReason::kPushbackStop:
    case StopReason::kDeadline:
    case StopReason::kBudgetExhausted: return true;
    default: return false;
  }
}

}  // namespace stormguard
