#include "stormguard/retry/retry_policy.h"

#include <algorithm>

#include "stormguard/core/validation.h"

namespace stormguard {

std::string_view StopReasonName(StopReason r) noexcept {
  switch (r) {
    case StopReason::kSucceeded: return "succeeded";
    case StopReason::kCancelled: return "cancelled";
    case StopReason::kDownstreamGaveUp: return "downstream_gave_up";
    case StopReason::kNotRetryable: return "not_retryable";
    case StopReason::kNotIdempotent: return "not_idempotent";
    case StopReason::kIncomingRetry: return "incoming_retry";
    case StopReason::kAttemptsExhausted: return "attempts_exhausted";
    case StopReason::kPushbackStop: return "pushback_stop";
    case StopReason::kDeadline: return "deadline";
    case StopReason::kBudgetExhausted: return "budget_exhausted";
  }
  return "unknown";
}

std::vector<std::string> RetryOptions::Validate() const {
  Validator v;
  v.Check(max_attempts >= 1, "max_attempts", "must be at least 1");
  v.Check(max_attempts <= kMaxRetryAttempts, "max_attempts", "must be at most " + std::to_string(kMaxRetryAttempts));
  v.Nest("backoff", backoff.Validate());
  v.Check(per_attempt_timeout > Duration::zero(), "per_attempt_timeout", "must be positive");
  v.Check(min_attempt_time >= Duration::zero(), "min_attempt_time", "must not be negative");
  v.Check(max_pushback >= Duration::zero(), "max_pushback", "must not be negative");
  v.Check(classifier != nullptr, "classifier", "must not be null");
  v.Check(!retry_on.contains(OutcomeClass::kSuccess), "retry_on", "must not contain success");
  return std::move(v).errors();
}

Result<RetryPolicy> RetryPolicy::Create(RetryOptions options) {
  Status s = ValidationStatus("retry options", options.Validate());
  if (!s.ok()) return s;
  Result<Backoff> backoff = Backoff::Create(options.backoff);
  if (!backoff.ok()) return std::move(backoff).status();
  return RetryPolicy(std::move(options), std::move(backoff).value());
}

RetryDecision RetryPolicy::Decide(OutcomeClass outcome, const Status& status, const CallContext& ctx, TimePoint now,
                                  Duration previous_wait, Random& rng) const noexcept {
  using R = RetryDecision;
  if (outcome == OutcomeClass::kSuccess) return R::Stop(StopReason::kSucceeded);
  if (outcome == OutcomeClass::kCancelled || ctx.stop.stop_requested()) {
    return R::Stop(StopReason::kCancelled);
  }
  if (outcome == OutcomeClass::kDoNotRetry) return R::Stop(StopReason::kDownstreamGaveUp);
  if (!o_.retry_on.contains(outcome)) return R::Stop(StopReason::kNotRetryable);
  if (outcome == OutcomeClass::kAmbiguous && (!o_.idempotent || ctx.idempotency_decided) && !ctx.idempotent &&
      ctx.idempotency_key.empty()) {
    return R::Stop(StopReason::kNotIdempotent);
  }
  if (ctx.incoming_is_retry && !o_.retry_when_serving_a_retry) return R::Stop(StopReason::kIncomingRetry);
  if (ctx.attempt >= o_.max_attempts) return R::Stop(StopReason::kAttemptsExhausted);

  const RetryHints& hints = status.hints();
  if (hints.pushback_stop) return R::Stop(StopReason::kPushbackStop);
  // Server pushback replaces the backoff only when it is longer: a server
  // may stretch the pause, never shorten it ("Retry-After: 0" must not turn
  // the retries into a burst). Clamped so a hostile or confused server
  // cannot park the caller for an hour.
  const Duration backoff = backoff_.Next(ctx.attempt, previous_wait, rng);
  const Duration wait =
      hints.pushback ? std::max(backoff, std::clamp(*hints.pushback, Duration::zero(), o_.max_pushback)) : backoff;
  const Duration remaining = ctx.deadline.Remaining(now);
  if (remaining <= Duration::zero() || remaining < SaturatingAdd(wait, o_.min_attempt_time)) {
    return R::Stop(StopReason::kDeadline);
  }
  if (o_.budget != nullptr && !o_.budget->TryAcquireRetry(now)) {
    return R::Stop(StopReason::kBudgetExhausted);
  }
  return R::Retry(wait);
}

}  // namespace stormguard
