// stormguard/pipeline/stages/global_rate_limit_stage.h: a fleet-wide rate
// limit (fleet/global_rate_limiter.h) as a stage.
//
// Spends a token of this instance's lease per attempt, locally (no network
// on the call path), and refuses with the limiter's RESOURCE_EXHAUSTED
// (source "global_rate_limit", class kOverloaded) when the share is spent,
// so a retry outside backs off within its budget. Every attempt that reaches
// the stage counts towards the demand the instance reports, refused ones
// included: that is how the store learns this instance wants more.
//
// Unlike the local rate limiter it gives no token back when an attempt is
// refused further in (the lease bucket has no reservations to cancel): put
// it innermost among the guards, after the breaker and the bulkhead, so
// that what it spends is what reaches the dependency:
//
//   builder.AddRetry({...}).AddCircuitBreaker(breaker).AddGlobalRateLimit(limiter);
//
// Thread safety: immutable around a thread-safe limiter, which several
// pipelines (and every reload that keeps its options) share.
#pragma once

#include <memory>

#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class GlobalRateLimitStage final : public Stage, public AsyncStage {
 public:
  explicit GlobalRateLimitStage(std::shared_ptr<GlobalRateLimiter> limiter) noexcept : limiter_(std::move(limiter)) {}
  static constexpr StagePlacement kPlacement{.kind = "global_rate_limit", .once = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return GlobalRateLimiter::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override { step.Finish(std::move(inner)); }
  const GlobalRateLimiter& limiter() const noexcept { return *limiter_; }

 private:
  std::shared_ptr<GlobalRateLimiter> limiter_;
};

}  // namespace stormguard
