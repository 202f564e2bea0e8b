#include "stormguard/pipeline/stages/fallback_stage.h"

#include <algorithm>

#include "stormguard/core/duration_format.h"
#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> FallbackOptions::Validate() const {
  Validator v;
  v.Check(classifier != nullptr, "classifier", "must not be null");
  v.Check(skip_when_remaining_below >= Duration::zero(), "skip_when_remaining_below", "must not be negative");
  v.Check(!on_outcomes.contains(OutcomeClass::kSuccess), "on_outcomes", "must not contain success");
  const bool triggers = !on_outcomes.empty() || on_any_rejection || !on_rejected_by.empty() ||
                        skip_when_remaining_below > Duration::zero();
  v.Check(triggers, "on_outcomes", "nothing would ever trigger the fallback");
  return std::move(v).errors();
}

Result<std::unique_ptr<FallbackStage>> FallbackStage::Create(FallbackOptions options, Listener* listener) {
  Status s = ValidationStatus("fallback options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<FallbackStage>(new FallbackStage(std::move(options), listener));
}

std::string FallbackStage::Describe() const {
  if (o_.skip_when_remaining_below == Duration::zero()) return "fallback";
  return "fallback(skip below " + FormatDuration(o_.skip_when_remaining_below) + ")";
}

bool FallbackStage::Triggers(const Status& failure, std::string_view* reason) const noexcept {
  if (!failure.source().empty()) {
    *reason = "rejected";
    return o_.on_any_rejection ||
           std::find(o_.on_rejected_by.begin(), o_.on_rejected_by.end(), failure.source()) != o_.on_rejected_by.end();
  }
  *reason = "outcome";
  return o_.on_outcomes.contains(o_.classifier->Classify(failure));
}

Status FallbackStage::Execute(CallContext& ctx, Next next) const {
  if (MaySkip(ctx)) {
    const TimePoint now = next.Now();
    if (SkipsAt(ctx, now)) {
      Status why = Skip(ctx, next.has_fallback(), now);
      return next.has_fallback() ? next.Fallback(why) : why;
    }
  }
  Status s = next(ctx);
  if (s.ok()) [[likely]]
    return s;
  std::string_view reason;
  if (!next.has_fallback() || !Triggers(s, &reason)) return s;
  if (listener_ != nullptr) ReportFallback(ctx, s, reason, next.Now());
  return next.Fallback(s);
}

void FallbackStage::ReportFallback(const CallContext& ctx, const Status& failure, std::string_view reason,
                                   TimePoint now) const {
  Emit(listener_, Event{.kind = EventKind::kFallback,
                        .policy = PolicyId::kFallback,
                        .reason = reason,
                        .at = now,
                        .attempt = ctx.attempt,
                        .outcome = o_.classifier->Classify(failure)});
}

Status FallbackStage::Skip(const CallContext& ctx, bool has_fallback, TimePoint now) const {
  Status why = Status::DeadlineExceeded("fallback: " + FormatDuration(ctx.deadline.Remaining(now)) + " left, below " +
                                        FormatDuration(o_.skip_when_remaining_below) + ": call skipped")
                   .WithSource(name());
  why.mutable_hints().outcome = OutcomeClass::kDeadlineExceeded;
  Emit(listener_, Event{.kind = has_fallback ? EventKind::kFallback : EventKind::kRejected,
                        .policy = PolicyId::kFallback,
                        .reason = "low_budget",
                        .at = now,
                        .attempt = ctx.attempt,
                        .outcome = OutcomeClass::kDeadlineExceeded});
  return why;
}

}  // namespace stormguard
