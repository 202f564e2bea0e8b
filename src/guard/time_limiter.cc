#include "stormguard/guard/time_limiter.h"

#include "stormguard/core/classifier.h"
#include "stormguard/core/duration_format.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace time_limiter_internal {

struct Core {
  // The slots are a Bulkhead of max_detached (the limiter reports its own
  // events, so the bulkhead has no listener).
  Core(const TimeLimiterOptions& o, Executor& ex)
      : options(o),
        executor(ex),
        timers(ex.timers()),
        clock(ex.clock()),
        slots(Bulkhead::Create({.max_concurrent = o.max_detached}).value()) {}

  void Report(EventKind kind, std::string_view reason, TimePoint at, int attempt, OutcomeClass outcome,
              Duration d = Duration::zero()) const noexcept {
    Emit(options.listener, Event{.kind = kind,
                                 .policy = PolicyId::kTimeLimiter,
                                 .reason = reason,
                                 .at = at,
                                 .attempt = attempt,
                                 .outcome = outcome,
                                 .duration = d});
  }

  Status Refuse(std::string_view reason, TimePoint now, int attempt, Status s) {
    rejected.fetch_add(1, std::memory_order_relaxed);
    const OutcomeClass outcome =
        s.code() == StatusCode::kDeadlineExceeded ? OutcomeClass::kDeadlineExceeded : OutcomeClass::kOverloaded;
    Report(EventKind::kRejected, reason, now, attempt, outcome);
    s.mutable_hints().outcome = outcome;
    return std::move(s).WithSource(TimeLimiter::kPolicy);
  }

  // The caller leaves before the work ended, at its deadline or because its
  // ctx.stop fired; false when the work ended first after all. The work is
  // told to stop only once the call is marked abandoned and reported, so
  // every answer and event comes in one order.
  bool Abandon(CallBase& call, bool at_deadline, int attempt) noexcept {
    const TimePoint now = clock.Now();
    call.left_at = now;
    // Counted before the state says so, so the work's decrement never comes first.
    abandoned.fetch_add(1, std::memory_order_relaxed);
    CallBase::State expected = CallBase::kPending;
    if (!call.state.compare_exchange_strong(expected, CallBase::kAbandoned, std::memory_order_acq_rel)) {
      abandoned.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    abandoned_total.fetch_add(1, std::memory_order_relaxed);
    if (at_deadline) {
      timed_out.fetch_add(1, std::memory_order_relaxed);
      Report(EventKind::kTimedOut, "deadline", now, attempt, OutcomeClass::kAmbiguous);
      Report(EventKind::kAbandoned, "timed_out", now, attempt, OutcomeClass::kAmbiguous);
    } else {
      cancelled.fetch_add(1, std::memory_order_relaxed);
      Report(EventKind::kAbandoned, "cancelled", now, attempt, OutcomeClass::kCancelled);
    }
    call.stop.request_stop();  // also wakes a caller whose own ctx.stop got here first
    return true;
  }

  // On the worker, once the work returned (or was skipped). The slot is free
  // before the caller wakes or the end is reported, so whoever hears of the
  // end finds the slot free.
  void OnWorkEnd(CallBase& call, const Status& status, bool ran) noexcept {
    call.slot.Release();
    CallBase::State expected = CallBase::kPending;
    if (call.state.compare_exchange_strong(expected, CallBase::kFinished, std::memory_order_acq_rel)) {
      call.stop.request_stop();  // wakes the caller, which takes the result
      return;
    }
    abandoned.fetch_sub(1, std::memory_order_relaxed);
    const TimePoint now = clock.Now();
    const Duration overrun = now > call.left_at ? now - call.left_at : Duration::zero();
    Report(EventKind::kAttemptEnded, ran ? "abandoned_work_ended" : "abandoned_work_skipped", now, call.ctx.attempt,
           ran ? DefaultClassifier().Classify(status) : OutcomeClass::kCancelled, overrun);
  }

  const TimeLimiterOptions options;
  Executor& executor;
  TimerService& timers;
  Clock& clock;
  const std::shared_ptr<Bulkhead> slots;
  std::atomic<int> abandoned{0};
  std::atomic<std::int64_t> abandoned_total{0};
  std::atomic<std::int64_t> timed_out{0};
  std::atomic<std::int64_t> cancelled{0};
  std::atomic<std::int64_t> rejected{0};
};

CallBase::CallBase(std::shared_ptr<Core> c, const CallContext& caller, Deadline d, BulkheadPermit s)
    : core(std::move(c)), slot(std::move(s)), deadline(d), ctx(caller) {
  ctx.deadline = d;
  ctx.stop = stop.get_token();
}

void CallBase::RunOnWorker() noexcept {
  // Stop already requested: the caller left (or was cancelled) while this
  // waited in the queue, so the work never starts.
  const bool start = !stop.stop_requested();
  const Status* status = nullptr;
  if (start) {
    ScopedCallContext scope(ctx);
    status = &Invoke();
  } else {
    status = &Skip(
        Status::Cancelled("time_limiter: the caller left before the work started").WithSource(TimeLimiter::kPolicy));
  }
  core->OnWorkEnd(*this, *status, start);
  Unref();
}

void CallBase::Unref() noexcept {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

}  // namespace time_limiter_internal

using time_limiter_internal::CallBase;
using time_limiter_internal::Core;

std::vector<std::string> TimeLimiterOptions::Validate() const {
  Validator v;
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  v.Check(max_detached >= 1, "max_detached", "must be at least 1");
  return std::move(v).errors();
}

Result<std::shared_ptr<TimeLimiter>> TimeLimiter::Create(TimeLimiterOptions options, Executor& executor) {
  Status s = ValidationStatus("time limiter options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<TimeLimiter>(new TimeLimiter(std::make_shared<Core>(options, executor)));
}

TimeLimiter::TimeLimiter(std::shared_ptr<Core> core) noexcept : core_(std::move(core)) {}
TimeLimiter::~TimeLimiter() = default;

const TimeLimiterOptions& TimeLimiter::options() const noexcept { return core_->options; }

TimeLimiterStats TimeLimiter::stats() const noexcept {
  const Core& c = *core_;
  return {.running = c.slots->stats().in_use,
          .abandoned = c.abandoned.load(std::memory_order_relaxed),
          .abandoned_total = c.abandoned_total.load(std::memory_order_relaxed),
          .timed_out = c.timed_out.load(std::memory_order_relaxed),
          .cancelled = c.cancelled.load(std::memory_order_relaxed),
          .rejected = c.rejected.load(std::memory_order_relaxed)};
}

Result<BulkheadPermit> TimeLimiter::Admit(const CallContext& ctx, Deadline& deadline) {
  Core& c = *core_;
  if (ctx.stop.stop_requested()) {
    c.cancelled.fetch_add(1, std::memory_order_relaxed);
    return Status::Cancelled("time_limiter: cancelled before the call").WithSource(kPolicy);
  }
  const TimePoint now = c.clock.Now();
  deadline = ctx.deadline.Within(now, c.options.timeout);  // an infinite timeout keeps ctx's
  if (deadline.Expired(now)) {
    return c.Refuse("deadline_expired", now, ctx.attempt,
                    Status::DeadlineExceeded("time_limiter: no time left before the call"));
  }
  Result<BulkheadPermit> slot = c.slots->TryAcquire(now);
  if (!slot.ok()) {
    return c.Refuse("full", now, ctx.attempt,
                    Status::ResourceExhausted("time_limiter full: " + std::to_string(c.options.max_detached) +
                                              " calls running, " +
                                              std::to_string(c.abandoned.load(std::memory_order_relaxed)) +
                                              " of them abandoned"));
  }
  return slot;
}

namespace {

// The caller's ctx.stop fired while it waits: it leaves at once.
struct AbandonOnStop {
  Core* core;
  CallBase* call;
  int attempt;
  void operator()() const noexcept { core->Abandon(*call, /*at_deadline=*/false, attempt); }
};

// Where the caller waits: woken by its deadline's timer or by the call's
// stop (the work ended, or the call was abandoned). No allocation.
class Waker {
 public:
  static void Wake(void* self) noexcept { static_cast<Waker*>(self)->Wake(); }
  void Wake() noexcept {
    woken_.store(true, std::memory_order_release);
    woken_.notify_one();
  }
  void Wait() noexcept { woken_.wait(false, std::memory_order_acquire); }

 private:
  std::atomic<bool> woken_{false};
};

struct WakeOnStop {
  Waker* waker;
  void operator()() const noexcept { waker->Wake(); }
};

}  // namespace

bool TimeLimiter::Await(CallBase& call, const CallContext& caller, Status& answer) {
  Core& c = *core_;
  Waker waker;
  // Armed before the work is submitted: whoever sees the work start knows
  // its deadline is armed too (tests move a ManualClock only then).
  TimerHandle deadline = c.timers.Schedule(call.deadline.time(), &Waker::Wake, &waker);
  call.refs.fetch_add(1, std::memory_order_relaxed);  // the task's reference
  if (!c.executor.TrySubmit([p = &call] { p->RunOnWorker(); })) {
    TimerService::Cancel(deadline);
    call.refs.fetch_sub(1, std::memory_order_relaxed);
    call.slot.Release();
    answer = c.Refuse("executor_full", c.clock.Now(), caller.attempt,
                      Status::ResourceExhausted("time_limiter: the executor's queue is full"));
    return false;
  }
  {
    // Gone before the state is read: a late ctx.stop cannot race the deadline.
    std::stop_callback link(caller.stop, AbandonOnStop{&c, &call, caller.attempt});
    std::stop_callback woken(call.stop.get_token(), WakeOnStop{&waker});
    waker.Wait();
  }
  TimerService::Cancel(deadline);  // waits out a firing timer: `waker` lives on this stack
  // Still pending: the deadline woke the caller (every stop follows a state change).
  switch (call.state.load(std::memory_order_acquire)) {
    case CallBase::kFinished: return true;
    case CallBase::kAbandoned:
      answer =
          Status::Cancelled("time_limiter: the caller was cancelled; the work runs on, detached").WithSource(kPolicy);
      return false;
    case CallBase::kPending: break;
  }
  if (!c.Abandon(call, /*at_deadline=*/true, caller.attempt)) return true;  // it ended just in time
  answer = Status::DeadlineExceeded("time_limiter: deadline passed (timeout " + FormatDuration(c.options.timeout) +
                                    "); the work runs on, detached")
               .WithSource(kPolicy);
  answer.mutable_hints().outcome = OutcomeClass::kAmbiguous;  // the work may still take effect
  return false;
}

}  // namespace stormguard
