// The bulkhead stage's asynchronous form. A call that finds the bulkhead
// full (and may wait) queues a QueuedWaiter kept in its frame and arms an
// AsyncWait for max_wait and ctx.stop: no thread waits. Whichever ends the
// wait first decides, under the bulkhead's lock: a slot handed over
// (on_grant claims the wait), or the time/stop (Withdraw takes the waiter
// out of the queue; if a slot was handed over meanwhile, the call takes it).
#include "stormguard/pipeline/stages/bulkhead_stage.h"

#include "stormguard/pipeline/async_wait.h"
#include "stormguard/pipeline/internal/async_now.h"

namespace stormguard {
namespace {

struct BulkheadState : Bulkhead::QueuedWaiter {
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
  const TimePoint now = pipeline_internal::DescentNow(step.clock());
  st.on_grant = [](Bulkhead::QueuedWaiter* w) noexcept { return static_cast<BulkheadState*>(w)->wait.Claim(); };
  st.resume = [](Bulkhead::QueuedWaiter* w) noexcept {
    auto* s = static_cast<BulkheadState*>(w);
    s->wait.Disarm();
    s->stage->Granted(s->step);
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
  st.wait.Start(step.timers(), SaturatingAdd(now, bulkhead_->options().max_wait), ctx.stop,
                [](void* arg, AsyncWait::End why) noexcept {
                  auto* s = static_cast<BulkheadState*>(arg);
                  s->stage->WaitEnded(s->step, why);
                },
                &st);
}

void BulkheadStage::WaitEnded(AsyncStep step, AsyncWait::End why) const {
  BulkheadState& st = step.state<BulkheadState>();
  if (why == AsyncWait::End::kClaimed || !bulkhead_->Withdraw(st)) return Granted(step);
  step.Finish(bulkhead_->WaitFailed(st.start, step.clock().Now(), why == AsyncWait::End::kStop));
}

void BulkheadStage::Granted(AsyncStep step) const {
  BulkheadState& st = step.state<BulkheadState>();
  BulkheadPermit permit = bulkhead_->Granted(st);
  if (step.ctx().stop.stop_requested()) {  // granted as the caller gave up: pass the slot on
    permit.Release();
    return step.Finish(bulkhead_->WaitFailed(st.start, step.clock().Now(), true));
  }
  st.permit = std::move(permit);
  step.RunInner();
}

void BulkheadStage::Resume(AsyncStep step, Status inner) const {
  step.state<BulkheadState>().permit.Release();  // the attempt has really ended
  step.Finish(std::move(inner));
}

}  // namespace stormguard
