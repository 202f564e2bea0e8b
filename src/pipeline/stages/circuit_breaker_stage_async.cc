// The circuit breaker stage's asynchronous form: acquire on the way in,
// record the attempt (or give the permit back) on the way out, timed and
// admitted as the blocking form does (circuit_breaker_stage.cc).
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

namespace stormguard {
namespace {

struct BreakerState {
  TimePoint start{};
  std::uint32_t calls_before = 0;
};

}  // namespace

AsyncStateLayout CircuitBreakerStage::async_state() const noexcept { return AsyncStateLayout::Of<BreakerState>(); }

void CircuitBreakerStage::Start(AsyncStep step) const {
  const TimePoint start = Time(step);
  if (!breaker_->PermitsEveryCall()) {
    Status admitted = breaker_->Acquire(start);
    if (!admitted.ok()) return step.Finish(std::move(admitted));
  }
  step.state<BreakerState>() = {.start = start, .calls_before = step.calls()};
  step.RunInner();
}

void CircuitBreakerStage::Resume(AsyncStep step, Status inner) const {
  const BreakerState& st = step.state<BreakerState>();
  const bool reached = step.calls() != st.calls_before;  // else refused further in
  Record(reached, inner, st.start, reached ? Time(step) : st.start);
  step.Finish(std::move(inner));
}

}  // namespace stormguard
