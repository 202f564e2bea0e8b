// stormguard/guard/time_limiter.h: a detached timeout for work that ignores cancellation.
//
// TimeoutStage (timeout.h) is cooperative: at the deadline it fires the
// attempt's stop_token, but the caller waits until the callable returns. A
// TimeLimiter is the other mode (Resilience4j's TimeLimiter, Polly's
// pessimistic timeout): the work runs on an Executor, and the caller gets
// its answer AT the deadline however long the work goes on. The work that
// is left behind keeps its slot until it really ends: at most
// `max_detached` calls run at once, abandoned ones included, so a
// dependency that hangs cannot pile up unbounded work (docs/deadlines.md, "The three hard rules").
//
//   auto limiter = TimeLimiter::Create({.timeout = 300ms, .max_detached = 8}, executor).value();
//   Result<Reply> r = limiter->Run(ctx, [sdk](CallContext& c) { return sdk->BlockingCall(c); });
//   // as a pipeline's callable (a retry after a timeout takes a new slot):
//   pipeline.Execute(ctx, [&](CallContext& c) { return limiter->Run(c, [sdk](CallContext& w) { ... }); });
//
// The work gets a copy of the caller's CallContext (installed as the
// worker's current context) whose deadline is min(ctx.deadline, now +
// timeout) and whose stop token fires at that deadline, when the caller's
// ctx.stop fires, or (harmlessly) after the work returned. What Run returns:
//   - the work's own result when it ends before the deadline;
//   - DEADLINE_EXCEEDED at the deadline (source "time_limiter", outcome
//     ambiguous: the work may still take effect);
//   - CANCELLED as soon as the caller's ctx.stop fires;
//   - RESOURCE_EXHAUSTED (source "time_limiter") when max_detached calls
//     already run, or the executor's queue is full;
//   - DEADLINE_EXCEEDED (outcome kDeadlineExceeded) without submitting when
//     the deadline has already passed; CANCELLED when ctx.stop already fired.
// Work still queued when its caller leaves never starts.
//
// Events (policy "time_limiter"): kRejected (reason "full", "executor_full",
// "deadline_expired"); kTimedOut ("deadline") when the caller leaves at the
// deadline; kAbandoned ("timed_out" or "cancelled") whenever the caller
// leaves before the work ended; and, when that work ends, kAttemptEnded with
// reason "abandoned_work_ended" (outcome: the work's own, classified;
// duration: how long it ran on after its caller left) or
// "abandoned_work_skipped" (it was still queued: it never ran). The slot is
// free before that last event is reported. The success path reports nothing.
//
// Ownership: the work outlives Run, so it is moved into a heap state shared
// by the caller and the executor task (one allocation per call, plus the
// std::stop_source's): capture by value what it uses (move-only captures
// are fine). The work is destroyed as soon as it ends, before its slot is
// given back, so whatever it owns is held exactly as long as it runs. That
// is how to share a bound with synchronous callers: take a Bulkhead permit
// and move it into the work (abandoned work keeps it). The limiter's own
// slots are a private Bulkhead of max_detached: they bound what it hands to
// its executor (queued work counts too), and its refusals, events and
// stats stay one policy's. The call's state keeps the limiter's slots and
// counters alive, so a TimeLimiter may be destroyed while
// abandoned work still runs; its listener and executor must outlive that
// work (destroying the Executor runs and joins every task).
// Time: executor.clock(); the deadline is a timer on executor.timers(), so
// the caller is answered at the deadline or up to one tick (1 ms) later on
// the default TimerService. Tests give the executor a TimerService without
// a background thread on a ManualClock: advancing it and calling RunDue()
// answers the caller exactly at the deadline.
// Thread safety: every method may be called concurrently. Cost: a thread
// hop and a wake per call (7-19us on a busy 2-core box) and two
// allocations: use it only around blocking calls that cannot be
// cancelled; TimeoutStage is the cheap default (bench/time_limiter_benchmark.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/events.h"
#include "stormguard/core/internal/call_helpers.h"
#include "stormguard/exec/executor.h"
#include "stormguard/guard/bulkhead.h"

namespace stormguard {

struct TimeLimiterOptions {
  // kInfiniteDuration: only the call's deadline applies.
  Duration timeout = std::chrono::seconds(1);
  // Calls running on the executor at once, queued and abandoned ones
  // included; >= 1.
  int max_detached = 16;
  Listener* listener = nullptr;  // may be null; must outlive abandoned work

  std::vector<std::string> Validate() const;
};

// A snapshot of separate counters (not one atomic picture).
struct TimeLimiterStats {
  int running = 0;    // slots taken: queued or running, abandoned included
  int abandoned = 0;  // of those, work whose caller already left
  std::int64_t abandoned_total = 0;
  std::int64_t timed_out = 0;  // callers answered DEADLINE_EXCEEDED at the deadline
  std::int64_t cancelled = 0;  // callers answered CANCELLED (ctx.stop)
  std::int64_t rejected = 0;   // refused: full, executor full, deadline expired
};

namespace time_limiter_internal {

struct Core;  // options, executor and counters: shared by the limiter and its calls

// One call's state, shared by the caller and the executor task: whoever lets
// go last frees it. Internal: only TimeLimiter uses it.
struct CallBase {
  enum State : std::uint8_t { kPending, kFinished, kAbandoned };

  CallBase(std::shared_ptr<Core> core, const CallContext& caller, Deadline deadline, BulkheadPermit slot);
  virtual ~CallBase() = default;
  CallBase(const CallBase&) = delete;
  CallBase& operator=(const CallBase&) = delete;

  // Runs the work on ctx and keeps its result; returns the result's status.
  virtual const Status& Invoke() noexcept = 0;
  // Keeps `why` as the result of work that never started.
  virtual const Status& Skip(Status why) noexcept = 0;

  void RunOnWorker() noexcept;
  void Unref() noexcept;

  std::shared_ptr<Core> core;
  BulkheadPermit slot;  // one of max_detached, given back when the work ends
  std::atomic<int> refs{1};
  std::atomic<State> state{kPending};  // the caller and the work race to leave it
  std::stop_source stop;               // the work's ctx.stop; also wakes the caller
  Deadline deadline;                   // read by the caller (ctx belongs to the work)
  TimePoint left_at{};                 // when the caller left; set before kAbandoned
  CallContext ctx;                     // the work's own
};

template <class F, class R>
struct Call final : CallBase {
  template <class G>
  Call(std::shared_ptr<Core> c, const CallContext& caller, Deadline d, BulkheadPermit s, G&& g)
      : CallBase(std::move(c), caller, d, std::move(s)), fn(std::in_place, std::forward<G>(g)) {}

  // The work and what it captured are destroyed as soon as it ends, before
  // its slot is given back or anyone hears of the end.
  const Status& Invoke() noexcept override {
    result.emplace(core_internal::InvokeCaught(*fn, ctx));
    fn.reset();
    return StatusOf(*result);
  }
  const Status& Skip(Status why) noexcept override {
    result.emplace(std::move(why));
    fn.reset();
    return StatusOf(*result);
  }

  std::optional<F> fn;
  std::optional<R> result;
};

}  // namespace time_limiter_internal

class TimeLimiter {
 public:
  static constexpr std::string_view kPolicy = "time_limiter";

  // Validates; INVALID_ARGUMENT names every bad field. `executor` must
  // outlive every Run call and the work it started.
  static Result<std::shared_ptr<TimeLimiter>> Create(TimeLimiterOptions options, Executor& executor);
  ~TimeLimiter();
  TimeLimiter(const TimeLimiter&) = delete;
  TimeLimiter& operator=(const TimeLimiter&) = delete;

  // Runs `work(CallContext&)` (returning Status or Result<T>) on the
  // executor; see the banner for what comes back. `work` is moved (or
  // copied) into the call's state: it must own what it uses.
  template <class F>
  auto Run(CallContext& ctx, F&& work) {
    using Fn = std::decay_t<F>;
    using R = std::invoke_result_t<Fn&, CallContext&>;
    Deadline deadline;
    Result<BulkheadPermit> slot = Admit(ctx, deadline);
    if (!slot.ok()) return R(std::move(slot).status());
    auto* call =
        new time_limiter_internal::Call<Fn, R>(core_, ctx, deadline, std::move(slot).value(), std::forward<F>(work));
    Status answer;
    if (Await(*call, ctx, answer)) {  // the work ended in time: its result is the answer
      R r = std::move(*call->result);
      call->Unref();
      return r;
    }
    call->Unref();
    return R(std::move(answer));
  }

  const TimeLimiterOptions& options() const noexcept;
  TimeLimiterStats stats() const noexcept;

 private:
  explicit TimeLimiter(std::shared_ptr<time_limiter_internal::Core> core) noexcept;
  // Refuses a call that may not start; otherwise takes a slot and sets the
  // work's deadline.
  Result<BulkheadPermit> Admit(const CallContext& ctx, Deadline& deadline);
  // Submits the call and waits for it. True: the work ended in time (its
  // result is the answer); false: `answer` says why not.
  bool Await(time_limiter_internal::CallBase& call, const CallContext& caller, Status& answer);

  std::shared_ptr<time_limiter_internal::Core> core_;
};

}  // namespace stormguard
