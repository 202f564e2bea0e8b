// The adaptive throttle stage's asynchronous form: the same admission and
// settling as the blocking form, around the inner stages' events.
#include "stormguard/pipeline/stages/adaptive_throttle_stage.h"

namespace stormguard {
namespace {

struct ThrottleState {
  std::uint32_t calls_before = 0;
};

}  // namespace

AsyncStateLayout AdaptiveThrottleStage::async_state() const noexcept { return AsyncStateLayout::Of<ThrottleState>(); }

void AdaptiveThrottleStage::Start(AsyncStep step) const {
  if (Status refused = throttle_->Admit(step.CheapNow()); !refused.ok()) return step.Finish(std::move(refused));
  step.state<ThrottleState>().calls_before = step.calls();
  step.RunInner();
}

void AdaptiveThrottleStage::Resume(AsyncStep step, Status inner) const {
  Settle(step.calls() != step.state<ThrottleState>().calls_before, inner, step.CheapNow());
  step.Finish(std::move(inner));
}

}  // namespace stormguard
