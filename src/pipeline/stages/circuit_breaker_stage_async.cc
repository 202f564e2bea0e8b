// The circuit breaker stage's asynchronous form: acquire on the way in,
// record the attempt (or give the permit back) on the way out.
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

#include <algorithm>

namespace stormguard {
namespace {

struct BreakerState {
  TimePoint start{};
  std::uint32_t calls_before = 0;
};

}  // namespace

AsyncStateLayout CircuitBreakerStage::async_state() const noexcept { return AsyncStateLayout::Of<BreakerState>(); }

void CircuitBreakerStage::Start(AsyncStep step) const {
  const TimePoint start = coarse_ ? step.clock().CoarseNow() : step.clock().Now();
  Status admitted = breaker_->Acquire(start);
  if (!admitted.ok()) return step.Finish(std::move(admitted));
  step.state<BreakerState>() = {.start = start, .calls_before = step.calls()};
  step.RunInner();
}

void CircuitBreakerStage::Resume(AsyncStep step, Status inner) const {
  const BreakerState& st = step.state<BreakerState>();
  if (step.calls() == st.calls_before) {  // refused further in: the dependency was never asked
    breaker_->ReleasePermission();
  } else {
    const TimePoint end = coarse_ ? step.clock().CoarseNow() : step.clock().Now();
    breaker_->OnResult(classifier_.Classify(inner), std::max(end - st.start, Duration::zero()), end);
  }
  step.Finish(std::move(inner));
}

}  // namespace stormguard
