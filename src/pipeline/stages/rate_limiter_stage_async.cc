// The rate limiter stage's asynchronous form: a token reserved now and, when
// it only comes later, an AsyncWait until then (ctx.stop gives it back).
#include "stormguard/pipeline/stages/rate_limiter_stage.h"

#include "stormguard/pipeline/internal/async_now.h"

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
  const Duration max_wait = limiter_->options().max_wait;
  const TimePoint now = pipeline_internal::DescentNow(step.clock());
  st.calls_before = step.calls();
  if (max_wait <= Duration::zero()) {
    Status admitted = limiter_->TryAcquire(now);
    return admitted.ok() ? step.RunInner() : step.Finish(std::move(admitted));
  }
  if (ctx.stop.stop_requested()) return step.Finish(RateLimiter::Cancelled(false));
  Result<Duration> wait = limiter_->Reserve(now, max_wait);
  if (!wait.ok()) return step.Finish(std::move(wait).status());
  if (*wait <= Duration::zero()) return step.RunInner();
  st.stage = this;
  st.step = step;
  st.wait.Reset();
  st.wait.Start(step.timers(), now + *wait, ctx.stop,
                [](void* arg, AsyncWait::End why) noexcept {
                  auto* s = static_cast<LimiterState*>(arg);
                  s->stage->WaitEnded(s->step, why);
                },
                &st);
}

void RateLimiterStage::WaitEnded(AsyncStep step, AsyncWait::End why) const {
  if (why != AsyncWait::End::kStop) return step.RunInner();
  limiter_->CancelReservation();
  step.Finish(RateLimiter::Cancelled(true));
}

void RateLimiterStage::Resume(AsyncStep step, Status inner) const {
  if (step.calls() == step.state<LimiterState>().calls_before) limiter_->CancelReservation();  // unused
  step.Finish(std::move(inner));
}

}  // namespace stormguard
