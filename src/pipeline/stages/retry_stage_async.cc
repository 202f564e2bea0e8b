// The retry stage's asynchronous form: the RetrySession's decisions, as
// ExecuteWithRetry takes them; the backoff is an AsyncWait (a timer that
// ctx.stop ends early), never a sleep.
#include "stormguard/pipeline/stages/retry_stage.h"

#include <algorithm>

#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/pipeline/async_wait.h"

namespace stormguard {
namespace {

struct RetryState {
  // User-provided: every member has an initializer (AsyncStateLayout::Of).
  RetryState() noexcept {}

  const RetryStage* stage = nullptr;
  AsyncStep step;
  RetrySession session;
  Deadline call_deadline{};
  TimePoint start{};
  // The flags go in the wait's tail padding: a waiting call holds this state.
  [[no_unique_address]] AsyncWait wait;
  bool timed = false;  // attempts need "now": a per-attempt timeout or a listener
  bool books = false;  // a budget keeps books on the coarse clock
};

}  // namespace

AsyncStateLayout RetryStage::async_state() const noexcept { return AsyncStateLayout::Of<RetryState>(); }

void RetryStage::Start(AsyncStep step) const {
  RetryState& st = step.state<RetryState>();
  const RetryOptions& o = policy_.options();
  st.stage = this;
  st.step = step;
  st.call_deadline = step.ctx().deadline;
  st.timed = o.per_attempt_timeout != kInfiniteDuration || o.listener != nullptr;
  st.books = policy_.budget() != nullptr;
  st.session = RetrySession(policy_, step.ctx(), st.books ? step.clock().CoarseNow() : TimePoint());
  StartAttempt(step);
}

void RetryStage::StartAttempt(AsyncStep step) const {
  RetryState& st = step.state<RetryState>();
  st.start = st.timed ? step.clock().Now() : TimePoint();
  step.ctx().deadline = st.timed ? policy_.AttemptDeadline(st.call_deadline, st.start) : st.call_deadline;
  step.RunInner();
}

void RetryStage::Resume(AsyncStep step, Status inner) const {
  RetryState& st = step.state<RetryState>();
  CallContext& ctx = step.ctx();
  Clock& clock = step.clock();
  ctx.deadline = st.call_deadline;
  const OutcomeClass outcome = policy_.Classify(inner);
  if (outcome == OutcomeClass::kSuccess) {  // a success needs no decision
    if (st.session.quiet()) {
      st.session.OnQuietSuccess(ctx, st.books ? clock.CoarseNow() : TimePoint());
    } else {
      const core_internal::AttemptEnd end = core_internal::EndAttempt(clock, policy_.attempt_timing(), st.start);
      st.session.OnSuccess(ctx, end.at, clock.CoarseNow(), end.duration, end.weight);
    }
    return step.Finish(std::move(inner));
  }
  const TimePoint end = clock.Now();
  const RetryDecision d = st.session.OnAttemptEnd(inner, outcome, ctx, end, clock.CoarseNow(),
                                                  st.timed ? end - st.start : Duration::zero(), ThreadLocalRandom());
  if (!d.retry) return step.Finish(std::move(inner));
  st.wait.Reset();
  st.wait.Start(
      step.timers(), std::min(SaturatingAdd(end, d.wait), st.call_deadline.time()), ctx.stop,
      [](void* arg, AsyncWait::End why) noexcept {
        auto* s = static_cast<RetryState*>(arg);
        s->stage->WaitEnded(s->step, why);
      },
      &st);
}

void RetryStage::WaitEnded(AsyncStep step, AsyncWait::End why) const {
  RetryState& st = step.state<RetryState>();
  CallContext& ctx = step.ctx();
  if (why == AsyncWait::End::kStop) return step.Finish(st.session.OnWaitCancelled(ctx, step.clock().CoarseNow()));
  ++ctx.attempt;
  StartAttempt(step);
}

}  // namespace stormguard
