// stormguard/pipeline/stages/adaptive_concurrency_stage.h: an adaptive
// concurrency limit as a stage.
//
// Takes a token before every attempt and refuses with the limiter's status
// (source "adaptive_concurrency", class kOverloaded) above the current
// limit. It samples the round-trip time of attempts that reached the
// callable: success -> OnSuccess; overloaded, ambiguous (a timeout) or
// deadline exceeded -> OnDropped (the limit backs off); anything else, or no
// call at all -> OnIgnore.
//
//   builder.AddRetry({...}).AddCircuitBreaker(breaker).AddAdaptiveConcurrency(limiter);
//
// Thread safety: immutable around a thread-safe limiter, which several
// pipelines may share.
#pragma once

#include <memory>

#include "stormguard/core/classifier.h"
#include "stormguard/guard/adaptive_concurrency.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class AdaptiveConcurrencyStage final : public Stage, public AsyncStage {
 public:
  AdaptiveConcurrencyStage(std::shared_ptr<AdaptiveLimiter> limiter, const Classifier& classifier) noexcept
      : limiter_(std::move(limiter)), classifier_(classifier) {}
  static constexpr StagePlacement kPlacement{.kind = "adaptive_concurrency", .once = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return AdaptiveLimiter::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;
  const AdaptiveLimiter& limiter() const noexcept { return *limiter_; }

 private:
  void Sample(AdaptiveLimiter::Token& token, const Status& s, TimePoint now) const;
  std::shared_ptr<AdaptiveLimiter> limiter_;
  const Classifier& classifier_;
};

}  // namespace stormguard
