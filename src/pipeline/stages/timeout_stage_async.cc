// The timeout stage's asynchronous form: as Execute, the attempt gets the
// tighter deadline and a stop_source of its own, linked to the caller's,
// that a timer stops at the deadline. The stage resumes when the inner
// part reports, however late (abandoned work keeps what it holds), and
// judges the outcome exactly as Execute does.
//
// The timer's stop may end the call inline (the attempt reports from its
// stop callback): the firing callback keeps its own reference to the
// source, and Resume, finding itself inside that very callback, does not
// cancel (or wait for) the timer it is running in.
//
// The source comes from the thread's pool (TakePooledStop) and goes back to
// the pool of the thread that resumes, unless it was stopped: the timer has
// fired, or the caller's stop was forwarded (both finished by the time
// Resume has cancelled the timer and dropped the forwarder, which wait for
// a callback running elsewhere). Its token is swapped into ctx.stop and
// back, so no reference count moves.
#include "stormguard/pipeline/stages/timeout_stage.h"

#include "stormguard/pipeline/internal/async_now.h"

#include <optional>
#include <utility>

namespace stormguard {
namespace {

struct TimeoutState;
thread_local const TimeoutState* t_firing = nullptr;  // the timeout whose timer this thread is running

// Forwards the caller's stop to the attempt's source, holding its own
// reference: the call may end inside request_stop.
struct KeepForwarder {
  std::stop_source* target;
  void operator()() const noexcept {
    std::stop_source keep = *target;
    keep.request_stop();
  }
};

struct TimeoutState {
  // User-provided: every member has an initializer (AsyncStateLayout::Of).
  TimeoutState() noexcept {}

  bool armed = false;
  Deadline deadline{};
  Deadline saved_deadline{};
  TimePoint start{};           // adaptive only: when the attempt started,
  Duration given{};            // the timeout it got,
  bool given_is_ours = false;  // and whether that (not the caller's deadline) bounds it
  PooledStop stop;             // while armed, its token holds the caller's ctx.stop
  std::optional<std::stop_callback<KeepForwarder>> forward;
  AsyncTimerHandle timer;
};

void Fire(void* arg) noexcept {
  auto* st = static_cast<TimeoutState*>(arg);
  std::stop_source keep = st->stop.source;  // the last touch of `st`: the call may end below
  const TimeoutState* outer = std::exchange(t_firing, st);
  keep.request_stop();
  t_firing = outer;
}

}  // namespace

AsyncStateLayout TimeoutStage::async_state() const noexcept { return AsyncStateLayout::Of<TimeoutState>(); }

void TimeoutStage::Start(AsyncStep step) const {
  TimeoutState& st = step.state<TimeoutState>();
  CallContext& ctx = step.ctx();
  st.armed = false;
  if (o_.adaptive == nullptr && o_.timeout == kInfiniteDuration && ctx.deadline.is_infinite()) {
    return step.RunInner();
  }
  const TimePoint now = pipeline_internal::DescentNow(step.clock());
  if (o_.adaptive != nullptr) {
    const Duration remaining = ctx.deadline.Remaining(now);
    st.start = now;
    st.given = o_.adaptive->TimeoutFor(now, remaining);
    st.given_is_ours = st.given < remaining;
    st.deadline = ctx.deadline.Within(now, st.given);
  } else {
    st.given = o_.timeout;
    st.deadline = o_.timeout == kInfiniteDuration ? ctx.deadline : ctx.deadline.Within(now, o_.timeout);
  }
  if (st.deadline.Expired(now)) return step.Finish(Expired(ctx, now));
  st.armed = true;
  st.stop = TakePooledStop();
  st.saved_deadline = std::exchange(ctx.deadline, st.deadline);
  st.forward.emplace(ctx.stop, KeepForwarder{&st.stop.source});  // registers nothing for an empty token
  ctx.stop.swap(st.stop.token);                                  // the member swap exchanges the pointers only
  st.timer = step.timers().Schedule(st.deadline.time(), &Fire, &st);
  step.RunInner();
}

void TimeoutStage::Resume(AsyncStep step, Status inner) const {
  TimeoutState& st = step.state<TimeoutState>();
  if (!st.armed) return step.Finish(std::move(inner));
  st.armed = false;
  bool fired = true;
  if (t_firing == &st) {
    st.timer = AsyncTimerHandle{};  // inside its own callback: it has fired
  } else {
    fired = !step.timers().Cancel(st.timer);
  }
  CallContext& ctx = step.ctx();
  ctx.deadline = st.saved_deadline;
  ctx.stop.swap(st.stop.token);
  st.forward.reset();
  ReturnPooledStop(std::move(st.stop));
  if (o_.adaptive == nullptr && !fired) [[likely]]
    return step.Finish(std::move(inner));
  const TimePoint end = step.clock().Now();  // only read when needed: the success path reads no clock here
  if (o_.adaptive != nullptr) {
    o_.adaptive->RecordAttempt(
        {.elapsed = end - st.start, .given = st.given, .timed_out = fired && st.given_is_ours, .ok = inner.ok()}, end);
  }
  if (fired) inner = Fired(std::move(inner), ctx, st.deadline, end, st.given);
  step.Finish(std::move(inner));
}

}  // namespace stormguard
