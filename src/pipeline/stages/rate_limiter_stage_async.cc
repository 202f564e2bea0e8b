// The rate limiter stage's asynchronous form: the blocking form's
// admission (Admit) and, when the token only comes later, an AsyncWait
// until then instead of a sleep (ctx.stop gives the token back).
#include "stormguard/pipeline/stages/rate_limiter_stage.h"

namespace stormguard {
namespace {

struct LimiterState {
  const RateLimiterStage* stage = nullptr;
  AsyncStep step;
  std::uint32_t calls_before = 0;
  AsyncWait wait;
};

}  // namespace

AsyncStateLayout RateLimiterStage::async_state() const noexcept { return AsyncStateLayout::Of<LimiterState>(); }

void RateLimiterStage::Start(AsyncStep step) const {
  LimiterState& st = step.state<LimiterState>();
  CallContext& ctx = step.ctx();
  const TimePoint now = step.Now();
  st.calls_before = step.calls();
  Result<Duration> wait = Admit(now, ctx.stop);
  if (!wait.ok()) return step.Finish(std::move(wait).status());
  if (*wait <= Duration::zero()) return step.RunInner();
  st.stage = this;
  st.step = step;
  st.wait.Reset();
  st.wait.Start(
      step.timers(), now + *wait, ctx.stop,
      [](void* arg, AsyncWait::End why) noexcept {
        auto* s = static_cast<LimiterState*>(arg);
        s->stage->WaitEnded(s->step, why);
      },
      &st);
}

void RateLimiterStage::WaitEnded(AsyncStep step, AsyncWait::End why) const {
  Status waited = limiter_->EndWait(why == AsyncWait::End::kStop);
  if (!waited.ok()) return step.Finish(std::move(waited));
  step.RunInner();
}

void RateLimiterStage::Resume(AsyncStep step, Status inner) const {
  if (step.calls() == step.state<LimiterState>().calls_before) limiter_->CancelReservation();  // unused
  step.Finish(std::move(inner));
}

}  // namespace stormguard
