// stormguard/pipeline/stages/bulkhead_stage.h: a bulkhead as a stage.
//
// Takes a slot before every attempt and refuses with the bulkhead's status
// (source "bulkhead", class kOverloaded) when none is free. Inside a retry,
// every attempt takes a slot (retries are load too) and none is held during
// a backoff wait:
//
//   builder.AddRetry({...}).AddCircuitBreaker(breaker).AddBulkhead(bulkhead);
//
// The slot is held until the rest of the pipeline returns. The stage blocks
// until the callable returns, however late, so a slot whose attempt timed
// out but keeps running stays taken until that work really ends (abandoned
// work holds its slot). With max_wait > 0 it waits for a slot on the
// pipeline's clock and ends the wait when ctx.stop fires.
// Asynchronously, the same holds without a thread: a call that must wait
// queues in the bulkhead from its frame and resumes when a slot is handed
// to it, or when max_wait or ctx.stop ends the wait (a timer).
//
// Thread safety: immutable around a thread-safe bulkhead, which several
// pipelines may share.
#pragma once

#include <memory>

#include "stormguard/guard/bulkhead.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/async_wait.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class BulkheadStage final : public Stage, public AsyncStage {
 public:
  BulkheadStage(std::shared_ptr<Bulkhead> bulkhead, Clock& clock) noexcept
      : bulkhead_(std::move(bulkhead)), clock_(clock) {}
  static constexpr StagePlacement kPlacement{.kind = "bulkhead", .once = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return Bulkhead::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;
  const Bulkhead& bulkhead() const noexcept { return *bulkhead_; }

 private:
  void WaitEnded(AsyncStep step, AsyncWait::End why) const;

  std::shared_ptr<Bulkhead> bulkhead_;
  Clock& clock_;
};

}  // namespace stormguard
