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
//
// The timer is armed once the inner part's start has returned, and only if
// the inner part has not answered by then: most calls answer inside it (a
// ready attempt, a synchronous failure), and a timer scheduled and cancelled
// for each cost about 80 ns on the Asio driver, a lock round trip each way.
// The deadline is the same absolute time either way. What changes: a start
// that takes long is not stopped by this timeout while it runs, but a
// start must not block (async_timers.h), and on an event loop the timer
// could not fire while the loop's thread runs it anyway. Start holds the
// call across RunInner so that it may still look at its state; `phase`
// says who has the timer:
//
//   kInner   the inner part runs, no timer yet
//   kArming  Start is scheduling it (a Resume elsewhere waits for the handle)
//   kArmed   scheduled: Resume cancels it
//   kDone    Resume came first: Start arms nothing
//
// with a count of Starts above the two phase bits, so that a Start looking
// late never takes a later Start's kInner for its own.
#include "stormguard/pipeline/stages/timeout_stage.h"

#include "stormguard/pipeline/internal/async_now.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
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

enum Phase : std::uint32_t { kDone = 0, kInner = 1, kArming = 2, kArmed = 3 };
constexpr std::uint32_t kPhaseBits = 3;

struct TimeoutState {
  // User-provided: every member has an initializer (AsyncStateLayout::Of).
  TimeoutState() noexcept {}

  bool armed = false;
  std::atomic<std::uint32_t> phase{0};  // the Start count << 2 | one of the phases above
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
  // Starts are one at a time per call (each after the last Resume): the count is this Start's own.
  const std::uint32_t inner = (st.phase.load(std::memory_order_relaxed) & ~kPhaseBits) + 4 + kInner;
  st.phase.store(inner, std::memory_order_relaxed);
  const AsyncStep::Hold hold = step.HoldCall();
  step.RunInner();
  std::uint32_t expected = inner;
  if (!st.phase.compare_exchange_strong(expected, inner - kInner + kArming, std::memory_order_acquire)) return;
  st.timer = step.timers().Schedule(st.deadline.time(), &Fire, &st);
  st.phase.store(inner - kInner + kArmed, std::memory_order_release);  // only Start leaves kArming
}

namespace {
// Takes the timer from Start, however far it got: true when it was armed.
bool TakeTimer(TimeoutState& st) noexcept {
  std::uint32_t p = st.phase.load(std::memory_order_acquire);
  for (;;) {
    if ((p & kPhaseBits) == kArming) {  // Start is scheduling it on another thread: a moment
      std::this_thread::yield();
      p = st.phase.load(std::memory_order_acquire);
    } else if (st.phase.compare_exchange_weak(p, (p & ~kPhaseBits) | kDone, std::memory_order_acq_rel,
                                              std::memory_order_acquire)) {
      return (p & kPhaseBits) == kArmed;
    }
  }
}
}  // namespace

void TimeoutStage::Resume(AsyncStep step, Status inner) const {
  TimeoutState& st = step.state<TimeoutState>();
  if (!st.armed) return step.Finish(std::move(inner));
  st.armed = false;
  bool fired = true;
  if (!TakeTimer(st)) {
    fired = false;  // answered before its start returned: never armed
  } else if (t_firing == &st) {
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
