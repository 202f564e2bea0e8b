// stormguard/hedge/hedge_driver.h: the blocking driver that runs a call with hedges.
//
// ExecuteHedged runs `fn(CallContext&)` as the primary attempt on the
// caller's thread. When the HedgePolicy says so (after the delay, or at once
// after a non-fatal failure) it launches another attempt of the same `fn` on
// the Executor, up to max_hedged_attempts. The first acceptable result wins:
// a success, or a fatal failure (outside non_fatal). Every other attempt
// still running is cancelled through its own stop token. When all attempts
// fail non-fatally and no more may launch, the last failure is returned.
//
//   auto ex = Executor::Create({.threads = 2}).value();
//   CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 800ms)};
//   Result<Stock> r = ExecuteHedged(*policy, ctx, [&](CallContext& a) -> Result<Stock> {
//     return replicas.Get(a.attempt, a.deadline, a.stop);  // a.attempt: 1 primary, 2.. hedges
//   }, *ex);
//
// Each attempt gets its own copy of the caller's CallContext (same deadline,
// same idempotency key: one logical operation; attempt = caller's attempt +
// i, so hedges travel as retries and the callee does not retry them again)
// and its own std::stop_source, linked to the caller's ctx.stop.
//
// Ownership, explicitly: the driver returns only after every attempt it
// started has returned (and its timer can no longer fire). `fn` and
// anything it captures by reference may therefore live on the caller's
// stack. A loser that ignores its stop token delays the return until it
// ends by itself (HedgeRun::loser_wait shows how long); nothing is abandoned,
// so no kAbandoned event is emitted. Callables must honour ctx.stop for
// hedging to cut latency at all.
//
// `fn` runs concurrently on the caller's thread and on executor workers, so
// it must be safe to call that way (the same rule as Polly's and gRPC's
// hedging: the operation is idempotent and its invocations independent).
// Exceptions it throws are caught and classified (InvokeCaught), on any
// thread. Time comes from executor.clock(), and the delay is a timer on
// executor.timers(), the TimerService that clock belongs to: with the
// default service a hedge launches at its delay or up to one tick (1 ms)
// later, a fraction of the few-millisecond delays hedging uses, and never
// earlier; with a service on a ManualClock, exactly when RunDue() fires it.
// The timer's callback only queues the decision on the executor (which
// decides and submits, under the call's lock): the decision reports to the
// policy's listener, user code that must not hold up the timer thread.
// The caller waits for its attempts in executor.Wait, so an executor made
// for tests can run them in turns on virtual time.
//
// Every decision (when to launch, which answer wins, what to stop, the
// events and the budget's books) is a HedgeSession's (hedge/hedge_session.h),
// the same one the hedge stage's asynchronous form drives; this driver only
// starts attempts, keeps the timer and waits. A hedge the executor refuses
// (a full queue) was already reported launched; it never runs, its retry is
// handed back, and nothing more launches (kGaveUp reason executor_busy).
//
// Events to policy.options().listener (policy "hedge"): kHedgeLaunched
// (attempt number, time since the previous launch), kAttemptEnded (outcome,
// latency), kHedgeWon when a hedge's result is the answer (a success, or a
// fatal failure that came first), kGaveUp (reason: HedgeStopName) when the
// call ends in failure.
// Budget protocol as the retry driver: OnRequestStart/End once, every
// finished attempt recorded (cancelled ones excepted), TryAcquireRetry per
// hedge, OnRetryEnd when each hedge ends. With a LatencyTracker, every
// successful attempt is recorded, and a loser slower than the winner is
// recorded at its elapsed time when cancelled (a lower bound, which keeps
// the percentile from drifting down as hedges win).
//
// Allocation: a call that can never hedge (CheckCall) runs inline and
// allocates nothing. Otherwise the primary's stop source comes from the
// caller's pool (StopSourceLease: nothing once warm, as long as it was not
// cancelled) and its CallContext copy reuses a thread buffer for the
// idempotency key, so a primary that wins allocates nothing once warm. Each
// hedge allocates a std::stop_source, and its context copy allocates for a
// key too long for the short string buffer (15 bytes with libstdc++). A
// callable must not keep its attempt's stop_token after it returns.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/internal/call_helpers.h"
#include "stormguard/core/stop_source_lease.h"
#include "stormguard/exec/executor.h"
#include "stormguard/hedge/hedge_policy.h"
#include "stormguard/hedge/hedge_session.h"

namespace stormguard {

// What one ExecuteHedged call did, for tests, logs and the simulator.
struct HedgeRun {
  int attempts = 0;                        // launched, the primary included
  int winner = 0;                          // 1-based index of the result returned as the answer; 0: all failed
  int cancelled = 0;                       // losers told to stop when the answer came
  HedgeStop stop = HedgeStop::kNone;       // the last reason a hedge was held back, or kFatal
  Duration loser_wait = Duration::zero();  // from the answer until the last loser returned
};

namespace hedge_internal {

struct ForwardStop {
  std::stop_source* target;
  void operator()() const noexcept { target->request_stop(); }
};

// What the blocking driver keeps per attempt besides the session's books.
struct Attempt {
  CallContext ctx;
  std::stop_source stop{std::nostopstate};
  std::optional<std::stop_callback<ForwardStop>> link;  // caller's stop -> this attempt
};

// The blocking driver of one hedged call, independent of the result type:
// a HedgeSession (hedge/hedge_session.h) decides under mu_; this class
// starts attempts on the executor, keeps the timer, and waits. Attempt
// index i is 0 for the primary; results are kept per attempt by the derived
// class, so only the index of the answer crosses the lock.
class BlockingHedgeBase {
 protected:
  BlockingHedgeBase(const HedgePolicy& policy, CallContext& ctx, Executor& ex, HedgeRun* run) noexcept;
  ~BlockingHedgeBase();
  BlockingHedgeBase(const BlockingHedgeBase&) = delete;
  BlockingHedgeBase& operator=(const BlockingHedgeBase&) = delete;

  // False: no hedge can ever launch; the caller runs fn inline on its ctx
  // and reports through EndInline.
  bool Begin();
  void EndInline(const Status& status, TimePoint start) noexcept;
  CallContext& caller() noexcept { return caller_; }
  Clock& clock() noexcept { return clock_; }

  // Runs attempt i (the caller's thread for 0, a worker for hedges).
  void RunAttempt(int i) noexcept;
  // Blocks until every attempt and the timer are done; the answer's index.
  int AwaitEnd();
  // Closes the books and settles the returned status (HedgeSession::Finish).
  void Finish(Status& answer) noexcept;

  // Runs fn on `ctx`, stores the result for attempt i, returns its status.
  virtual const Status& Invoke(int i, CallContext& ctx) noexcept = 0;

 private:
  void Do(const HedgeActions& a);  // under mu_
  void StartAttempt(int i);
  void ArmTimer(TimePoint due);
  static void OnTimer(void* self) noexcept;
  void OnTimerDue() noexcept;
  void CancelTimer() noexcept;
  // The budget's time: read only when there is a budget to tell it.
  TimePoint BooksNow() const noexcept {
    return session_.policy().budget() != nullptr ? clock_.CoarseNow() : TimePoint{};
  }
  bool Quiet() const noexcept { return session_.answered() && session_.in_flight() == 0 && !timer_outstanding_; }

  CallContext& caller_;
  Executor& ex_;
  TimerService& timers_;
  Clock& clock_;
  HedgeRun local_run_;
  HedgeRun& run_;

  std::mutex mu_;
  std::condition_variable cv_;  // not _any: that one allocates
  HedgeSession session_;
  // The primary's stop source, from the caller's pool (hedges start on the
  // timer's thread and use their own). Declared before attempts_, so the
  // copies of it they hold are gone before it goes back to the pool.
  std::optional<StopSourceLease> primary_source_;
  Attempt attempts_[HedgeSession::kMaxAttempts];
  bool timer_outstanding_ = false;  // scheduled, and its callback has not run
  bool answer_gave_up_ = false;     // the answer's attempt saw a downstream give up
  TimerHandle timer_;
  TimePoint answered_at_{};
};

template <class F, class R>
class BlockingHedge final : public BlockingHedgeBase {
 public:
  BlockingHedge(const HedgePolicy& p, CallContext& ctx, F& fn, Executor& ex, HedgeRun* run) noexcept
      : BlockingHedgeBase(p, ctx, ex, run), fn_(fn) {}

  R Run() {
    if (!Begin()) {
      const TimePoint start = clock().Now();
      const Status& s = Invoke(0, caller());
      EndInline(s, start);
      return Take(0);
    }
    RunAttempt(0);
    return Take(AwaitEnd());
  }

 private:
  const Status& Invoke(int i, CallContext& ctx) noexcept override {
    results_[i].emplace(core_internal::InvokeCaught(fn_, ctx));
    return StatusOf(*results_[i]);
  }

  R Take(int i) noexcept {
    R r = std::move(*results_[i]);
    Finish(core_internal::MutableStatusOf(r));
    return r;
  }

  F& fn_;
  std::optional<R> results_[HedgeSession::kMaxAttempts];
};

}  // namespace hedge_internal

template <class F>
auto ExecuteHedged(const HedgePolicy& policy, CallContext& ctx, F&& fn, Executor& executor, HedgeRun* run = nullptr) {
  using R = std::invoke_result_t<F&, CallContext&>;
  hedge_internal::BlockingHedge<std::remove_reference_t<F>, R> call(policy, ctx, fn, executor, run);
  return call.Run();
}

}  // namespace stormguard
