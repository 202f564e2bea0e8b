// The chaos stage's asynchronous form: the same draws; an injected delay is
// an AsyncWait (a timer of the driver that ctx.stop ends early), never a
// parked thread.
#include "stormguard/pipeline/stages/chaos_stage.h"

#include <algorithm>

#include "stormguard/pipeline/async_wait.h"

namespace stormguard {
namespace {

struct ChaosState {
  AsyncStep step;
  bool substitute = false;  // kOutcome hit: the inner answer is replaced
  AsyncWait wait;
};

}  // namespace

AsyncStateLayout ChaosStage::async_state() const noexcept { return AsyncStateLayout::Of<ChaosState>(); }

void ChaosStage::Start(AsyncStep step) const {
  ChaosState& st = step.state<ChaosState>();
  CallContext& ctx = step.ctx();
  st.substitute = false;
  const ChaosDecision d = policy_->Decide(step.clock(), ctx.attempt);
  if (!d.inject) return step.RunInner();
  switch (policy_->kind()) {
    case ChaosKind::kError: return step.Finish(policy_->InjectedStatus());
    case ChaosKind::kOutcome: st.substitute = true; return step.RunInner();
    case ChaosKind::kLatency: break;
  }
  st.step = step;
  st.wait.Reset();
  const TimePoint until = std::min(SaturatingAdd(step.clock().Now(), d.delay), ctx.deadline.time());
  st.wait.Start(
      step.timers(), until, ctx.stop,
      [](void* arg, AsyncWait::End) noexcept {
        auto* s = static_cast<ChaosState*>(arg);
        Status cut = DelayCut(s->step.ctx(), s->step.clock().Now());
        if (!cut.ok()) return s->step.Finish(std::move(cut));
        s->step.RunInner();
      },
      &st);
}

void ChaosStage::Resume(AsyncStep step, Status inner) const {
  ChaosState& st = step.state<ChaosState>();
  if (st.substitute) return step.Finish(policy_->InjectedStatus());
  step.Finish(std::move(inner));
}

}  // namespace stormguard
