// stormguard/pipeline/stages/retry_stage.h: retries as a stage.
//
// RetryStage runs the rest of the pipeline through ExecuteWithRetry
// (retry/retry_driver.h): every attempt passes through the stages added after
// it (breaker, bulkhead, limiter, per-attempt timeout), so each attempt is
// recorded by the breaker and an open breaker ends the retries at once (its
// rejection is classified do-not-retry). Waits between attempts end early
// when ctx.stop fires (the overall timeout) and never pass ctx.deadline.
// Asynchronously, the same RetrySession decides and a wait is a timer.
//
//   builder.AddTimeout(1s).AddRetry({.max_attempts = 3, .budget = budget}).AddAttemptTimeout(300ms);
//
// Thread safety: immutable; the retry budget inside RetryOptions is shared
// and thread-safe. Jitter draws from ThreadLocalRandom().
#pragma once

#include <memory>
#include <string>

#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/async_wait.h"
#include "stormguard/pipeline/stage.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/retry/retry_session.h"

namespace stormguard {

class RetryStage final : public Stage, public AsyncStage {
 public:
  RetryStage(RetryPolicy policy, Clock& clock) noexcept : policy_(std::move(policy)), clock_(clock) {}

  // Retry drives the attempts and reports each one's end.
  static constexpr StagePlacement kPlacement{.kind = "retry", .once = true, .reports_attempt_end = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return "retry"; }
  bool repeats_every_call() const noexcept override { return policy_.options().idempotent; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;

  const RetryPolicy& policy() const noexcept { return policy_; }

 private:
  void StartAttempt(AsyncStep step) const;
  void WaitEnded(AsyncStep step, AsyncWait::End why) const;

  RetryPolicy policy_;
  Clock& clock_;
};

}  // namespace stormguard
