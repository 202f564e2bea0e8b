// stormguard/pipeline/stages/fallback_stage.h: answer from elsewhere when the call fails or is refused.
//
// The FallbackStage decides *when* to fall back; the call site supplies
// *what* (the value differs per call: a cached price, an empty list):
//
//   auto p = PipelineBuilder(env).AddFallback({.skip_when_remaining_below = 50ms})...Build();
//   Result<Recs> r = p->Execute(ctx, fetch_recs, [](const Status&) { return Recs{}; });
//
// It falls back when
//   - the call failed with an outcome class in `on_outcomes` (statuses that
//     came from the callee: source() is empty), or
//   - a policy refused or cut the call (source() names it: "circuit_breaker",
//     "bulkhead", "timeout"...) and `on_any_rejection` is set or the source
//     is listed in `on_rejected_by`, or
//   - before calling at all, when the call's remaining time is below
//     `skip_when_remaining_below` (docs/deadlines.md: skip non-critical calls when
//     the budget is nearly spent; the downstream is never asked).
// Without a fallback at the call site, failures pass through unchanged and a
// skipped call returns DEADLINE_EXCEEDED with source "fallback".
// Note: a status a retry gave up on is marked do-not-retry and classifies as
// kDoNotRetry, which is why the default `on_outcomes` contains it.
// Every fallback emits kFallback with reason "outcome", "rejected" or
// "low_budget".
//
// Thread safety: immutable; the call site's fallback runs on the calling thread.
#pragma once

#include <string>
#include <vector>

#include "stormguard/core/classifier.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

struct FallbackOptions {
  OutcomeSet on_outcomes{OutcomeClass::kTransient, OutcomeClass::kOverloaded, OutcomeClass::kAmbiguous,
                         OutcomeClass::kDoNotRetry, OutcomeClass::kDeadlineExceeded};
  bool on_any_rejection = true;
  std::vector<std::string> on_rejected_by;                // used when !on_any_rejection
  Duration skip_when_remaining_below = Duration::zero();  // zero: never skip
  const Classifier* classifier = &DefaultClassifier();

  std::vector<std::string> Validate() const;
};

class FallbackStage final : public Stage, public AsyncStage {
 public:
  static Result<std::unique_ptr<FallbackStage>> Create(FallbackOptions options, Listener* listener);

  static constexpr PlacementRule kRules[] = {
      {PlacementRule::kOutside, "retry", "it hides failures from the retry; add it before AddRetry"}};
  static constexpr StagePlacement kPlacement{.kind = "fallback", .once = true, .rules = kRules};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return "fallback"; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;

  const FallbackOptions& options() const noexcept { return o_; }
  // Whether `failure` (not OK) triggers the fallback; the reason for events.
  bool Triggers(const Status& failure, std::string_view* reason) const noexcept;

 private:
  FallbackStage(FallbackOptions o, Listener* l) : o_(std::move(o)), listener_(l) {}
  // The low-budget refusal, reported; the caller falls back on it if it can.
  Status Skip(const CallContext& ctx, bool has_fallback, TimePoint now) const;
  bool SkipsAt(const CallContext& ctx, TimePoint now) const noexcept {
    return ctx.deadline.Remaining(now) < o_.skip_when_remaining_below;
  }
  bool MaySkip(const CallContext& ctx) const noexcept {
    return o_.skip_when_remaining_below > Duration::zero() && !ctx.deadline.is_infinite();
  }
  void ReportFallback(const CallContext& ctx, const Status& failure, std::string_view reason, TimePoint now) const;

  FallbackOptions o_;
  Listener* listener_;
};

}  // namespace stormguard
