// stormguard/pipeline/stages/circuit_breaker_stage.h: a circuit breaker as a stage.
//
// Asks the breaker before every attempt and refuses with its status
// (source "circuit_breaker", class kOverloaded). Inside a retry, each
// attempt is recorded, and an open breaker's pushback (the rest of its open
// wait, usually beyond the deadline) ends the retries at once; a fallback
// outside can answer instead:
//
//   builder.AddRetry({...}).AddCircuitBreaker(breaker).AddBulkhead(bulkhead);
//
// It records every attempt that reached the callable (outcome by the
// pipeline's classifier, latency for the slow-call rate) and gives the
// permit back for one refused further in. When the breaker's
// slow_call_duration is 500ms or more (default 2s), latency is measured with
// CheapNow() (a few ms of error, no clock read of its own); below that,
// with Now(), the pass's precise reading. Both forms time by this one rule
// (Time), through Next or AsyncStep, whose readings follow one rule too
// (stage.h): the same calls record the same latencies under every driver
// (tests/pipeline/scenarios/guard_scenarios.h).
//
// Thread safety: immutable around a thread-safe breaker, which several
// pipelines may share.
#pragma once

#include <algorithm>
#include <memory>

#include "stormguard/core/classifier.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class CircuitBreakerStage final : public Stage, public AsyncStage {
 public:
  CircuitBreakerStage(std::shared_ptr<CircuitBreaker> breaker, const Classifier& classifier) noexcept;
  static constexpr StagePlacement kPlacement{.kind = "circuit_breaker", .once = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return kCircuitBreakerPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;
  const CircuitBreaker& breaker() const noexcept { return *breaker_; }

 private:
  // `pass` is the blocking form's Next or the asynchronous form's AsyncStep.
  template <class Pass>
  TimePoint Time(const Pass& pass) const noexcept {
    return coarse_ ? pass.CheapNow() : pass.Now();
  }
  // The end of an attempt, for both forms: recorded when it reached the
  // callable (`reached`), else its permit given back.
  void Record(bool reached, const Status& s, TimePoint start, TimePoint end) const noexcept {
    if (!reached) return breaker_->ReleasePermission();
    breaker_->OnResult(classifier_.Classify(s), std::max(end - start, Duration::zero()), end);
  }
  Status Attempt(CallContext& ctx, Next next, TimePoint start) const;

  std::shared_ptr<CircuitBreaker> breaker_;
  const Classifier& classifier_;
  bool coarse_;
};

}  // namespace stormguard
