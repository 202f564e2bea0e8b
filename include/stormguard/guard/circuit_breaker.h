// stormguard/guard/circuit_breaker.h: stop calling a dependency that is failing.
//
// The state machine (Polly v8's CircuitStateController; the trip rule lives
// apart in circuit_behavior.h, the windows in sliding_window.h):
//
//   closed      calls go through and are recorded in the sliding window;
//               when the trip rule fires, the circuit opens.
//   open        calls are refused until the wait in open has passed (fixed,
//               or Backoff::Ceiling(n) for the n-th consecutive open); then
//               the next call moves it to half-open, or, with
//               automatic_transition_from_open_to_half_open, a timer of
//               options.timers does when the wait ends, with no call.
//   half_open   `permitted_calls_in_half_open` trial calls go through, the
//               rest are refused. When all trial results are in, the trip
//               rule decides: trip -> open again, else -> closed. With
//               max_wait_in_half_open > 0 a half-open circuit that has not
//               decided by then opens again.
//   forced_open refuses everything until told otherwise.
//   disabled    permits everything, records nothing.
//   metrics_only permits everything, records every call and reports each
//               one as an event, but never changes state (shadow mode).
//
// Only explicit calls (TransitionTo..., Reset) leave the last three. Every
// transition is allowed except closed -> half_open (it would skip the wait
// in open), metrics_only -> open and metrics_only -> half_open (shadow mode
// never acts on its own judgement), as in Resilience4j; a refused one
// returns FAILED_PRECONDITION and changes nothing. Reset() works from any
// state.
//
// Against Resilience4j (the model; docs/circuit-breakers-and-composition.md,
// "Against Resilience4j"): the trip rule, the slow-call rule (a call is slow
// when it takes LONGER than slow_call_duration; failed calls count as slow
// too), half-open's trial calls and maximum wait, and the allowed transitions
// match. Differences, each on purpose:
//   - the wait in open ends AT open_until (R4j: strictly after), so a timer
//     set for NextTick() finds Tick() due;
//   - automatic open -> half-open runs on a timer of the TimerService the
//     options name (the one the pipeline's other timers use), not on a
//     scheduler thread of its own;
//   - a transition to the current state does nothing (R4j re-enters it,
//     silently starting a new window or wait; Reset() does that openly);
//   - forced_open reports every refusal as kRejected (R4j publishes no
//     events there), so counters show the traffic a forced breaker drops;
//   - a result arriving while open or forced open is dropped (R4j records
//     it into a window that half-open discards anyway);
//   - minimum_number_of_calls above a count window's size is an error
//     (R4j lowers it to the window size without a word).
//
//   auto cb = CircuitBreaker::Create({.window_size = 20, .minimum_number_of_calls = 10});
//   if (!(*cb)->TryAcquirePermission(clock.Now())) return fallback();
//   const TimePoint start = clock.Now();
//   Status s = CallInventory();
//   (*cb)->OnResult(DefaultClassifier().Classify(s), clock.Now() - start, clock.Now());
//
// A permitted call must end in exactly one OnResult or ReleasePermission
// (half-open trial permits are counted; a lost permit keeps a trial slot).
//
// Events (to options.listener, PolicyId::kCircuitBreaker): kStateChanged for
// every transition, from_state and to_state the CircuitState values
// (duration: the wait in open); kStateReported once, from Create, to_state
// the first state (so a state gauge exists before the first transition;
// `at` is unset: Create is given no time);
// kRejected for every refused call; in metrics_only, kAttemptEnded for every
// recorded call, reason "recorded" or "threshold reached: failure_rate" /
// "threshold reached: slow_call_rate" (what a closed circuit would have
// done). A transition to the current state changes nothing and emits nothing.
//
// Thread safety: every method may be called from any thread. Permitting and
// recording take no lock (atomic state, lock-free windows); transitions take
// a mutex, and state-change events are emitted under it, in order, so a
// listener must not call back into the breaker. No method blocks or sleeps;
// time only comes in as `now`, except on the automatic transition's timer,
// which reads options.timers->clock() (so `now` must come from that clock)
// and runs on the timer's thread (or in TimerService::RunDue). The timer
// holds only a weak reference: a breaker destroyed, or moved out of open,
// before it fires disarms it, and a firing that loses that race does nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/backoff/backoff.h"
#include "stormguard/core/events.h"
#include "stormguard/core/outcome.h"
#include "stormguard/core/result.h"
#include "stormguard/core/status.h"
#include "stormguard/core/time.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/guard/circuit_behavior.h"
#include "stormguard/guard/sliding_window.h"

namespace stormguard {

inline constexpr std::string_view kCircuitBreakerPolicy = "circuit_breaker";

enum class CircuitState : std::uint8_t {
  kClosed,
  kOpen,
  kHalfOpen,
  kForcedOpen,
  kDisabled,
  kMetricsOnly,
};

// "closed", "open", "half_open", "forced_open", "disabled", "metrics_only".
std::string_view CircuitStateName(CircuitState s) noexcept;
// "closed->open", for people (a refused transition's message); a static string.
std::string_view CircuitTransitionName(CircuitState from, CircuitState to) noexcept;
// Whether TransitionTo... may move `from` -> `to`: all but closed ->
// half_open, metrics_only -> open and metrics_only -> half_open.
constexpr bool CircuitTransitionAllowed(CircuitState from, CircuitState to) noexcept {
  if (from == CircuitState::kClosed) return to != CircuitState::kHalfOpen;
  if (from == CircuitState::kMetricsOnly) return to != CircuitState::kOpen && to != CircuitState::kHalfOpen;
  return true;
}

// Failures by default: everything that says the dependency is unwell.
// kDeadlineExceeded counts, because a hung dependency shows up as nothing
// but exhausted deadlines; kDoNotRetry counts, because the dependency
// answered with a failure (its own downstream gave up). kPermanent
// (400/404...) counts as a success: the dependency answered, correctly.
inline constexpr OutcomeSet kDefaultBreakerFailures{OutcomeClass::kTransient, OutcomeClass::kOverloaded,
                                                    OutcomeClass::kAmbiguous, OutcomeClass::kDoNotRetry,
                                                    OutcomeClass::kDeadlineExceeded};
// Ignored by default: a cancelled call says nothing about the dependency
// (the caller went away). An ignored call is not recorded at all; in
// half-open it gives its trial permit back.
inline constexpr OutcomeSet kDefaultBreakerIgnored{OutcomeClass::kCancelled};

// Defaults (docs/circuit-breakers-and-composition.md, "Breaker parameters"):
// 50% failures, 50% slow calls, 2 s slow-call duration, a window of the last
// 100 calls, 30 s in open. What that config leaves unset takes Resilience4j's
// default: 100 minimum calls, 10 trial calls, no automatic transition, no
// maximum wait in half-open. (Resilience4j's own defaults differ for two
// fields set here: slow-call rate 100%, slow-call duration 60 s.)
//
// Units: both thresholds are fractions in (0, 1], compared with >= and
// kept to a millionth; Resilience4j's failureRateThreshold=50 (percent) is
// failure_rate_threshold = 0.5. Durations are std::chrono.
struct CircuitBreakerOptions {
  double failure_rate_threshold = 0.5;                    // fraction, (0, 1]; trips at >=
  double slow_call_rate_threshold = 0.5;                  // fraction, (0, 1]; trips at >=
  Duration slow_call_duration = std::chrono::seconds(2);  // a call longer than this is slow
  WindowKind window_kind = WindowKind::kCountBased;
  int window_size = 100;  // calls, or seconds for kTimeBased
  // Calls the window must hold before a rate is computed (for a count
  // window at most window_size; for a time window, per window_size seconds).
  int minimum_number_of_calls = 100;
  Duration wait_in_open = std::chrono::seconds(30);
  // When set, the wait in open is wait_in_open_backoff->Ceiling(n) for the
  // n-th open in a row (n resets when the circuit closes) and wait_in_open
  // is unused: a dependency that keeps failing its trials is left alone longer.
  std::optional<Backoff> wait_in_open_backoff{};
  int permitted_calls_in_half_open = 10;
  // false: an open circuit moves to half-open on the first call after the
  // wait. true: a timer of `timers` also moves it when the wait ends, with
  // no call needed (and Tick(now) does too).
  bool automatic_transition_from_open_to_half_open = false;
  // Zero: half-open waits for every trial result however long it takes.
  Duration max_wait_in_half_open = Duration::zero();
  OutcomeSet failure_outcomes = kDefaultBreakerFailures;  // anything else recorded is a success
  OutcomeSet ignored_outcomes = kDefaultBreakerIgnored;
  Listener* listener = nullptr;  // optional; must outlive the breaker
  // Required with automatic_transition_from_open_to_half_open (else unused):
  // on the clock the breaker's `now` comes from; must outlive the breaker.
  // PipelineBuilder and the config registry give their own.
  TimerService* timers = nullptr;

  std::vector<std::string> Validate() const;
};

class CircuitBreaker {
 public:
  // Validates (and that the automatic transition has its timers);
  // INVALID_ARGUMENT names every bad field. Starts closed.
  // Shared: one breaker judges a destination for every caller.
  static Result<std::shared_ptr<CircuitBreaker>> Create(CircuitBreakerOptions options);

  CircuitBreaker(const CircuitBreaker&) = delete;
  CircuitBreaker& operator=(const CircuitBreaker&) = delete;
  ~CircuitBreaker();

  // May a call start now? A refusal emits kRejected.
  bool TryAcquirePermission(TimePoint now) noexcept {
    if (AlwaysPermits(state_.load(std::memory_order_acquire))) return true;
    return Admit(now) == Admission::kPermitted;
  }
  // The same decision as a Status: OK, or UNAVAILABLE with source
  // "circuit_breaker" and a reason ("circuit open; retry in 12.3s"). An open
  // circuit's refusal carries the remaining wait as pushback and the
  // outcome hint kOverloaded; a forced-open one asks never to retry.
  Status Acquire(TimePoint now);
  // Whether every call is permitted without asking (closed, disabled,
  // metrics_only): Acquire's lock-free fast path, for callers that would
  // rather not build an OK Status. Otherwise ask Acquire.
  bool PermitsEveryCall() const noexcept { return AlwaysPermits(state()); }

  // The permitted call finished with `outcome` after `latency`. Inline for
  // the healthy path: a quick success that a closed circuit's full, clean
  // count window would absorb unchanged returns here, with no call.
  void OnResult(OutcomeClass outcome, Duration latency, TimePoint now) noexcept {
    if (outcome == OutcomeClass::kSuccess && latency <= o_.slow_call_duration && count_window_ != nullptr &&
        state_.load(std::memory_order_acquire) == CircuitState::kClosed && count_window_->FullAndClean()) {
      return;
    }
    Record(outcome, latency, now);
  }
  // The permitted call never ran: in half-open its trial permit comes back.
  void ReleasePermission() noexcept;
  // Applies transitions that are due by time alone: open -> half-open (only
  // with automatic_transition_from_open_to_half_open) and half-open -> open
  // after max_wait_in_half_open.
  void Tick(TimePoint now) noexcept;
  // When Tick next has something to do; kInfiniteFuture when nothing is due.
  TimePoint NextTick() const noexcept;

  CircuitState state() const noexcept { return state_.load(std::memory_order_acquire); }
  // The window the current state judges by: the trial calls in half-open
  // (and in an open state entered from half-open), else the main window.
  WindowMetrics metrics(TimePoint now) const noexcept;
  const CircuitBreakerOptions& options() const noexcept { return o_; }

  // Explicit transitions. Entering closed, disabled, metrics_only or
  // forced_open clears the main window and the consecutive-open count;
  // entering open starts a new wait; entering half-open hands out fresh
  // trial permits. A transition to the current state does nothing; a
  // refused one (CircuitTransitionAllowed) is FAILED_PRECONDITION.
  Status TransitionToClosed(TimePoint now) { return MoveTo(CircuitState::kClosed, now); }
  Status TransitionToOpen(TimePoint now) { return MoveTo(CircuitState::kOpen, now); }
  Status TransitionToHalfOpen(TimePoint now) { return MoveTo(CircuitState::kHalfOpen, now); }
  Status TransitionToForcedOpen(TimePoint now) { return MoveTo(CircuitState::kForcedOpen, now); }
  Status TransitionToDisabled(TimePoint now) { return MoveTo(CircuitState::kDisabled, now); }
  Status TransitionToMetricsOnly(TimePoint now) { return MoveTo(CircuitState::kMetricsOnly, now); }
  // Closed with empty windows and no consecutive opens, from any state
  // (an event only when the state changes).
  void Reset(TimePoint now);

 private:
  enum class Admission : std::uint8_t { kPermitted, kOpen, kHalfOpenFull, kForcedOpen };

  explicit CircuitBreaker(CircuitBreakerOptions options);

  static constexpr bool AlwaysPermits(CircuitState s) noexcept {
    return s == CircuitState::kClosed || s == CircuitState::kDisabled || s == CircuitState::kMetricsOnly;
  }

  Admission Admit(TimePoint now) noexcept;
  Admission Reject(Admission why, TimePoint now) noexcept;
  Status RejectionStatus(Admission why, TimePoint now) const;
  bool TakeTrialPermit() noexcept;
  TimePoint OpenUntil() const noexcept;
  bool OpenWaitOver(TimePoint now) const noexcept;
  bool HalfOpenExpired(TimePoint now) const noexcept;
  // The automatic transition's timer (needs mu_): armed on entering open,
  // disarmed on leaving it. Its argument is a weak_ptr of its own.
  void ArmOpenTimerLocked(TimePoint until) noexcept;
  void DisarmOpenTimerLocked() noexcept;
  static void OnOpenTimer(void* self) noexcept;
  static void HalfOpenWhenDue(void* self) noexcept;

  void Record(OutcomeClass outcome, Duration latency, TimePoint now) noexcept;
  void RecordClosed(CallRecord call, TimePoint now) noexcept;
  void RecordHalfOpen(CallRecord call, TimePoint now) noexcept;
  void RecordMetricsOnly(CallRecord call, OutcomeClass outcome, Duration latency, TimePoint now) noexcept;

  Status MoveTo(CircuitState to, TimePoint now);
  // Moves `from` -> `to` if the circuit is still in `from` and, leaving open
  // or half-open, if that state's time is really up.
  void MoveIfDue(CircuitState from, CircuitState to, TimePoint now) noexcept;
  void EnterLocked(CircuitState to, TimePoint now) noexcept;  // needs mu_
  Duration OpenWait(int consecutive_opens) const noexcept;

  // Read on every call: kept together at the front.
  std::atomic<CircuitState> state_{CircuitState::kClosed};
  std::atomic<std::int64_t> open_until_ns_{0};       // open: when half-open may begin
  std::atomic<std::int64_t> half_open_until_ns_{0};  // half-open: when it gives up
  std::atomic<int> trial_permits_{0};                // half-open permits left
  std::atomic<bool> judging_trials_{false};          // metrics() shows the trial window

  const CircuitBreakerOptions o_;
  const CircuitBehavior behavior_;
  std::unique_ptr<SlidingWindow> window_;                    // closed and metrics_only
  const CountWindow* count_window_;                          // window_ when count-based, else null
  CountWindow trial_window_;                                 // half-open
  std::mutex mu_;                                            // serialises transitions
  int consecutive_opens_ = 0;                                // guarded by mu_
  std::weak_ptr<CircuitBreaker> self_;                       // set by Create: what the timer holds
  TimerHandle open_timer_;                                   // guarded by mu_
  std::weak_ptr<CircuitBreaker>* open_timer_arg_ = nullptr;  // guarded by mu_; the callback frees it
};

}  // namespace stormguard
