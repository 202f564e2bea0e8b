// stormguard/pipeline/stages/rate_limiter_stage.h: a rate limiter as a stage.
//
// Spends a token per attempt and refuses with the limiter's status (source
// "rate_limiter", class kOverloaded) when none is left, so a retry outside
// backs off within its budget. A token goes back when the attempt was
// refused further in and never reached the callable, so inside the breaker
// a call the breaker refuses costs no token:
//
//   builder.AddRetry({...}).AddCircuitBreaker(breaker).AddRateLimiter(limiter);
//
// With max_wait > 0 it waits for a token on the pipeline's clock and ends
// the wait when ctx.stop fires (asynchronously: a timer, no thread; a token
// given back then returns to the stripe of the thread that gave up).
//
// Thread safety: immutable around a thread-safe limiter, which several
// pipelines may share.
#pragma once

#include <memory>

#include "stormguard/guard/rate_limiter.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/async_wait.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class RateLimiterStage final : public Stage, public AsyncStage {
 public:
  RateLimiterStage(std::shared_ptr<RateLimiter> limiter, Clock& clock) noexcept
      : limiter_(std::move(limiter)), clock_(clock) {}
  static constexpr StagePlacement kPlacement{.kind = "rate_limiter", .once = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return RateLimiter::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;
  const RateLimiter& limiter() const noexcept { return *limiter_; }

 private:
  // The admission both forms ask for, at `now`: a token now (zero), one
  // reserved for `now` + the result (the caller waits until then, or gives
  // it back when `stop` fires), or the refusal.
  Result<Duration> Admit(TimePoint now, const std::stop_token& stop) const;
  void WaitEnded(AsyncStep step, AsyncWait::End why) const;
  Status Attempt(CallContext& ctx, Next next) const;

  std::shared_ptr<RateLimiter> limiter_;
  Clock& clock_;
};

}  // namespace stormguard
