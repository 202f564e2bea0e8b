// stormguard/pipeline/stages/idempotency_key_stage.h: refuse calls that carry no idempotency key.
//
// IdempotencyKeyStage refuses calls without ctx.idempotency_key
// (FAILED_PRECONDITION, source "idempotency_key", event kRejected with
// reason "missing_key"): the table "Parameters per situation"
// (docs/circuit-breakers-and-composition.md) requires a key for third-party
// APIs and payments, so a retried or confirmed request is the same logical
// operation.
//
//   builder.AddRetry({.max_attempts = 3, .idempotent = true}).AddRequireIdempotencyKey();
//
// Thread safety: immutable.
#pragma once

#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class IdempotencyKeyStage final : public Stage, public AsyncStage {
 public:
  explicit IdempotencyKeyStage(Listener* listener) noexcept : listener_(listener) {}

  static constexpr StagePlacement kPlacement{.kind = "idempotency_key", .once = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return "idempotency_key"; }
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;

 private:
  Status Refuse(const CallContext& ctx, TimePoint now) const;
  Listener* listener_;
};

}  // namespace stormguard
