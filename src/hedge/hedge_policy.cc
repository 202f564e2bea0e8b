#include "stormguard/hedge/hedge_policy.h"

#include <algorithm>

#include "stormguard/core/validation.h"

namespace stormguard {

std::string_view HedgeStopName(HedgeStop r) noexcept {
  switch (r) {
    case HedgeStop::kNone: return "none";
    case HedgeStop::kCancelled: return "cancelled";
    case HedgeStop::kNotIdempotent: return "not_idempotent";
    case HedgeStop::kIncomingRetry: return "incoming_retry";
    case HedgeStop::kAttemptsExhausted: return "attempts_exhausted";
    case HedgeStop::kPushbackStop: return "pushback_stop";
    case HedgeStop::kDeadline: return "deadline";
    case HedgeStop::kBudgetExhausted: return "budget_exhausted";
    case HedgeStop::kExecutorBusy: return "executor_busy";
    case HedgeStop::kFatal: return "fatal";
  }
  return "unknown";
}

std::vector<std::string> HedgeOptions::Validate() const {
  Validator v;
  v.Check(delay >= Duration::zero(), "delay", "must not be negative (infinite: hedge only after failures)");
  v.Check(max_hedged_attempts >= 1 && max_hedged_attempts <= kMaxHedgedAttempts, "max_hedged_attempts",
          "must be between 1 and 4");
  v.CheckRange(quantile, "quantile", kPositiveFraction);
  v.Check(min_delay >= Duration::zero(), "min_delay", "must not be negative");
  v.Check(max_delay >= min_delay, "max_delay", "must be at least min_delay");
  v.Check(delay_refresh >= Duration::zero(), "delay_refresh", "must not be negative");
  v.Check(!non_fatal.contains(OutcomeClass::kSuccess), "non_fatal", "must not contain success");
  v.Check(min_attempt_time >= Duration::zero(), "min_attempt_time", "must not be negative");
  v.Check(max_pushback >= Duration::zero(), "max_pushback", "must not be negative");
  v.Check(classifier != nullptr, "classifier", "must not be null");
  return std::move(v).errors();
}

Result<HedgePolicy> HedgePolicy::Create(HedgeOptions options) {
  Status s = ValidationStatus("hedge options", options.Validate());
  if (!s.ok()) return s;
  std::shared_ptr<hedge_internal::RefreshedQuantile> cache;
  if (options.latency != nullptr) cache = std::make_shared<hedge_internal::RefreshedQuantile>(options.delay);
  return HedgePolicy(std::move(options), std::move(cache));
}

Duration HedgePolicy::LiveDelay(TimePoint now) const noexcept {
  const std::optional<Duration> p = o_.latency->Quantile(o_.quantile, now);
  return p ? std::clamp(*p, o_.min_delay, o_.max_delay) : o_.delay;
}

Duration HedgePolicy::CurrentDelay(TimePoint now) const noexcept {
  if (cache_ == nullptr) return o_.delay;
  return cache_->Get(now, o_.delay_refresh, [this](TimePoint t) { return LiveDelay(t); });
}

HedgeStop HedgePolicy::CheckCall(const CallContext& ctx, TimePoint now) const noexcept {
  if (ctx.stop.stop_requested()) return HedgeStop::kCancelled;
  if ((!o_.idempotent || ctx.idempotency_decided) && !ctx.idempotent && ctx.idempotency_key.empty()) {
    return HedgeStop::kNotIdempotent;
  }
  if (ctx.incoming_is_retry && !o_.hedge_when_serving_a_retry) return HedgeStop::kIncomingRetry;
  const Duration left = ctx.deadline.Remaining(now);
  if (left <= Duration::zero() || left < o_.min_attempt_time) return HedgeStop::kDeadline;
  return HedgeStop::kNone;
}

HedgeDecision HedgePolicy::Decide(const HedgeState& state, const CallContext& ctx, TimePoint now) const noexcept {
  using D = HedgeDecision;
  if (const HedgeStop r = CheckCall(ctx, now); r != HedgeStop::kNone) return D::Stop(r);
  if (state.launched > o_.max_hedged_attempts) return D::Stop(HedgeStop::kAttemptsExhausted);
  if (state.pushback_stop) return D::Stop(HedgeStop::kPushbackStop);

  const bool failed = state.failed_since_last_launch;
  const Duration delay = failed ? Duration::zero() : CurrentDelay(now);
  if (delay == kInfiniteDuration) return D::Wait(kInfiniteDuration);
  const TimePoint due = failed ? state.not_before : SaturatingAdd(state.last_launch, delay);
  const Duration left_at_start = ctx.deadline.Remaining(std::max(due, now));
  if (left_at_start <= Duration::zero() || left_at_start < o_.min_attempt_time) {
    return failed ? D::Stop(HedgeStop::kDeadline) : D::Wait(kInfiniteDuration, HedgeStop::kDeadline);
  }
  if (due > now) return D::Wait(due - now);
  if (o_.budget != nullptr && !o_.budget->TryAcquireRetry(now)) return D::Stop(HedgeStop::kBudgetExhausted);
  return D::Launch();
}

// gRPC A6 counts non-fatal codes and do-not-retry pushback as failures.
void HedgePolicy::RecordOutcome(OutcomeClass outcome, TimePoint now) const noexcept {
  if (o_.budget == nullptr || outcome == OutcomeClass::kCancelled) return;
  if (IsNonFatal(outcome) || outcome == OutcomeClass::kDoNotRetry) {
    o_.budget->RecordFailure(now);
  } else {
    o_.budget->RecordSuccess(now);
  }
}

bool HedgePolicy::GivesUpForTheChain(HedgeStop r) noexcept {
  return r == HedgeStop::kAttemptsExhausted || r == HedgeStop::kBudgetExhausted || r == HedgeStop::kDeadline ||
         r == HedgeStop::kPushbackStop;
}

}  // namespace stormguard
