// stormguard/pipeline/stages/adaptive_throttle_stage.h: client-side
// adaptive throttling (guard/adaptive_throttle.h) as a stage.
//
// Every attempt is a request; the throttle may refuse it before it leaves
// (RESOURCE_EXHAUSTED from "adaptive_throttle", marked do-not-retry, so the
// retry outside stops instead of redrawing). An attempt that reached the
// callable is judged by the pipeline's classifier: an accept unless its
// class is in reject_on. One refused further in, which never reached the
// callable, is taken back. It belongs inside the retry, so that every retry
// is a request the formula sees; inside the breaker, so that calls the open
// breaker refuses are not requests:
//
//   builder.AddRetry({.budget = budget}).AddCircuitBreaker(breaker).AddAdaptiveThrottle(throttle);
//
// Thread safety: immutable around a thread-safe throttle, which several
// pipelines may share.
#pragma once

#include <memory>

#include "stormguard/core/classifier.h"
#include "stormguard/guard/adaptive_throttle.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class AdaptiveThrottleStage final : public Stage, public AsyncStage {
 public:
  AdaptiveThrottleStage(std::shared_ptr<AdaptiveThrottle> throttle, const Classifier& classifier) noexcept
      : throttle_(std::move(throttle)), classifier_(classifier) {}
  static constexpr PlacementRule kRules[] = {
      {PlacementRule::kInside, "retry",
       "its retries would reach the backend uncounted; add it after AddRetry, so every attempt is a request"}};
  static constexpr StagePlacement kPlacement{.kind = "adaptive_throttle", .once = true, .rules = kRules};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return AdaptiveThrottle::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;
  const AdaptiveThrottle& throttle() const noexcept { return *throttle_; }

 private:
  // Counts the attempt's answer, or takes it back when it never reached the callable.
  void Settle(bool reached, const Status& s, TimePoint now) const noexcept;

  std::shared_ptr<AdaptiveThrottle> throttle_;
  const Classifier& classifier_;
};

}  // namespace stormguard
