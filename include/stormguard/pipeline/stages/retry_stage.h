// stormguard/pipeline/stages/retry_stage.h: retries, and the idempotency check, as stages.
//
// RetryStage runs the rest of the pipeline through ExecuteWithRetry
// (retry/retry_driver.h): every attempt passes through the stages added after
// it (breaker, bulkhead, limiter, per-attempt timeout), so each attempt is
// recorded by the breaker and an open breaker ends the retries at once (its
// rejection is classified do-not-retry). Waits between attempts end early
// when ctx.stop fires (the overall timeout) and never pass ctx.deadline.
//
// IdempotencyKeyStage refuses calls without ctx.idempotency_key
// (FAILED_PRECONDITION, source "idempotency_key"): the table "Parameters per
// situation" (docs/circuit-breakers-and-composition.md) requires a key
// for third-party APIs and payments, so a retried or confirmed request is
// the same logical operation.
//
//   builder.AddRetry({.max_attempts = 3, .idempotent = true}).AddRequireIdempotencyKey();
//
// Thread safety: immutable; the retry budget inside RetryOptions is shared
// and thread-safe. Jitter draws from ThreadLocalRandom().
#pragma once

#include <memory>
#include <string>

#include "stormguard/pipeline/stage.h"
#include "stormguard/retry/retry_policy.h"

namespace stormguard {

class RetryStage final : public Stage {
 public:
  RetryStage(RetryPolicy policy, Clock& clock) noexcept : policy_(std::move(policy)), clock_(clock) {}

  StageKind kind() const noexcept override { return StageKind::kRetry; }
  std::string_view name() const noexcept override { return "retry"; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;

  const RetryPolicy& policy() const noexcept { return policy_; }

 private:
  RetryPolicy policy_;
  Clock& clock_;
};

class IdempotencyKeyStage final : public Stage {
 public:
  explicit IdempotencyKeyStage(Listener* listener) noexcept : listener_(listener) {}

  StageKind kind() const noexcept override { return StageKind::kIdempotencyKey; }
  std::string_view name() const noexcept override { return "idempotency_key"; }
  Status Execute(CallContext& ctx, Next next) const override;

 private:
  Listener* listener_;
};

}  // namespace stormguard
