// The bulkhead stage's asynchronous form: Bulkhead::Acquire's protocol
// (AcquireOrQueue, a wait, EndWait) with a timer as the wait. A call that
// finds the bulkhead full (and may wait) queues a QueuedWaiter kept in its
// frame and arms an AsyncWait for max_wait and ctx.stop: no thread waits.
// Whichever ends the wait first decides, under the bulkhead's lock: a slot
// handed over (on_grant claims the wait), or the time/stop (EndWait takes
// the waiter out of the queue; if a slot was handed over meanwhile, the
// call takes it).
#include "stormguard/pipeline/stages/bulkhead_stage.h"

#include "stormguard/pipeline/async_wait.h"

namespace stormguard {
namespace {

struct BulkheadState : Bulkhead::QueuedWaiter {
  // User-provided: every member has an initializer (AsyncStateLayout::Of).
  BulkheadState() noexcept {}

  const BulkheadStage* stage = nullptr;
  AsyncStep step;
  TimePoint start{};
  BulkheadPermit permit;
  AsyncWait wait;
};

}  // namespace

AsyncStateLayout BulkheadStage::async_state() const noexcept { return AsyncStateLayout::Of<BulkheadState>(); }

void BulkheadStage::Start(AsyncStep step) const {
  BulkheadState& st = step.state<BulkheadState>();
  CallContext& ctx = step.ctx();
  const TimePoint now = step.Now();
  st.on_grant = [](Bulkhead::QueuedWaiter* w) noexcept { return static_cast<BulkheadState*>(w)->wait.Claim(); };
  st.resume = [](Bulkhead::QueuedWaiter* w) noexcept {
    auto* s = static_cast<BulkheadState*>(w);
    s->wait.Disarm();
    s->stage->WaitEnded(s->step, AsyncWait::End::kClaimed);
  };
  st.wait.Reset();
  st.stage = this;  // all set before queuing: a slot may be handed over at once
  st.step = step;
  st.start = now;
  Result<BulkheadPermit> permit = bulkhead_->AcquireOrQueue(now, ctx.stop, st);
  if (!permit.ok()) return step.Finish(std::move(permit).status());
  if (permit->valid()) {
    st.permit = std::move(permit).value();
    return step.RunInner();
  }
  st.wait.Start(
      step.timers(), SaturatingAdd(now, bulkhead_->options().max_wait), ctx.stop,
      [](void* arg, AsyncWait::End why) noexcept {
        auto* s = static_cast<BulkheadState*>(arg);
        s->stage->WaitEnded(s->step, why);
      },
      &st);
}

// A claimed wait was handed a slot; a timed-out or stopped one may have
// been handed one meanwhile: EndWait tells.
void BulkheadStage::WaitEnded(AsyncStep step, AsyncWait::End why) const {
  BulkheadState& st = step.state<BulkheadState>();
  const bool stopped = why == AsyncWait::End::kStop || step.ctx().stop.stop_requested();
  Result<BulkheadPermit> permit = bulkhead_->EndWait(st, st.start, step.clock().Now(), stopped);
  if (!permit.ok()) return step.Finish(std::move(permit).status());
  st.permit = std::move(permit).value();
  step.RunInner();
}

void BulkheadStage::Resume(AsyncStep step, Status inner) const {
  step.state<BulkheadState>().permit.Release();  // the attempt has really ended
  step.Finish(std::move(inner));
}

}  // namespace stormguard
