#include "stormguard/guard/circuit_breaker.h"

#include <algorithm>
#include <array>

#include "circuit_breaker_metrics.h"
#include "stormguard/core/duration_format.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr int kStateCount = 6;
constexpr std::array<std::string_view, kStateCount> kStateNames = {"closed",      "open",     "half_open",
                                                                   "forced_open", "disabled", "metrics_only"};

// Every "from->to" spelled out once at compile time: CircuitTransitionName
// returns static strings.
struct TransitionNames {
  static constexpr std::size_t kWidth = 32;
  char text[kStateCount][kStateCount][kWidth] = {};
};

constexpr TransitionNames BuildTransitionNames() {
  TransitionNames t;
  for (int from = 0; from < kStateCount; ++from) {
    for (int to = 0; to < kStateCount; ++to) {
      char* out = t.text[from][to];
      std::size_t n = 0;
      for (char c : kStateNames[static_cast<std::size_t>(from)]) out[n++] = c;
      out[n++] = '-';
      out[n++] = '>';
      for (char c : kStateNames[static_cast<std::size_t>(to)]) out[n++] = c;
    }
  }
  return t;
}

constexpr TransitionNames kTransitionNames = BuildTransitionNames();

constexpr std::int64_t Nanos(TimePoint t) noexcept { return t.time_since_epoch().count(); }

std::string_view MetricsOnlyReason(TripReason r) noexcept {
  switch (r) {
    case TripReason::kNone: return "recorded";
    case TripReason::kFailureRate: return "threshold reached: failure_rate";
    case TripReason::kSlowCallRate: return "threshold reached: slow_call_rate";
  }
  return "recorded";
}

}  // namespace

std::string_view CircuitStateName(CircuitState s) noexcept {
  const auto i = static_cast<std::size_t>(s);
  return i < kStateNames.size() ? kStateNames[i] : std::string_view("unknown");
}

std::string_view CircuitTransitionName(CircuitState from, CircuitState to) noexcept {
  const auto f = static_cast<std::size_t>(from);
  const auto t = static_cast<std::size_t>(to);
  if (f >= kStateCount || t >= kStateCount) return "unknown";
  return kTransitionNames.text[f][t];
}

// ---- options ---------------------------------------------------------------

std::vector<std::string> CircuitBreakerOptions::Validate() const {
  Validator v;
  v.CheckRange(failure_rate_threshold, "failure_rate_threshold", kPositiveFraction);
  v.CheckRange(slow_call_rate_threshold, "slow_call_rate_threshold", kPositiveFraction);
  v.Check(slow_call_duration > Duration::zero(), "slow_call_duration", "must be positive");
  if (window_kind == WindowKind::kTimeBased) {
    v.Check(window_size >= 1 && window_size <= SlidingWindow::kMaxTimeSeconds, "window_size",
            "must be in [1, " + std::to_string(SlidingWindow::kMaxTimeSeconds) + "] seconds");
  } else {
    v.Check(window_size >= 1 && window_size <= SlidingWindow::kMaxCountSize, "window_size",
            "must be in [1, " + std::to_string(SlidingWindow::kMaxCountSize) + "] calls");
    v.Check(minimum_number_of_calls <= window_size, "minimum_number_of_calls",
            "must not exceed window_size for a count-based window (it could never be reached)");
  }
  v.Check(minimum_number_of_calls >= 1, "minimum_number_of_calls", "must be at least 1");
  v.Check(wait_in_open_backoff.has_value() || wait_in_open > Duration::zero(), "wait_in_open", "must be positive");
  v.Check(permitted_calls_in_half_open >= 1 && permitted_calls_in_half_open <= SlidingWindow::kMaxCountSize,
          "permitted_calls_in_half_open", "must be in [1, " + std::to_string(SlidingWindow::kMaxCountSize) + "]");
  v.Check(max_wait_in_half_open >= Duration::zero(), "max_wait_in_half_open",
          "must not be negative (zero waits for every trial call)");
  v.Check(!failure_outcomes.contains(OutcomeClass::kSuccess), "failure_outcomes", "must not contain success");
  v.Check(!ignored_outcomes.contains(OutcomeClass::kSuccess), "ignored_outcomes", "must not contain success");
  v.Check((failure_outcomes.bits() & ignored_outcomes.bits()) == 0, "ignored_outcomes",
          "must not overlap failure_outcomes");
  return std::move(v).errors();
}

// ---- construction ----------------------------------------------------------

Result<std::shared_ptr<CircuitBreaker>> CircuitBreaker::Create(CircuitBreakerOptions options) {
  std::vector<std::string> errors = options.Validate();
  // Not in Validate(): options read from a file are complete without timers,
  // which whoever creates the breaker (a pipeline, the registry) supplies.
  if (options.automatic_transition_from_open_to_half_open && options.timers == nullptr) {
    errors.push_back(
        "automatic_transition_from_open_to_half_open: needs options.timers, whose timer moves the "
        "circuit to half-open when no call comes");
  }
  Status s = ValidationStatus("circuit breaker options", std::move(errors));
  if (!s.ok()) return s;
  std::shared_ptr<CircuitBreaker> made(new CircuitBreaker(std::move(options)));
  made->self_ = made;
  // Before the first event. It fails only when a program has taken every
  // metric family the process may have; the breaker works without them.
  (void)guard_internal::RegisterCircuitBreakerMetrics();
  Emit(made->o_.listener, Event{.kind = EventKind::kStateReported,
                                .policy = PolicyId::kCircuitBreaker,
                                .to_state = static_cast<std::uint8_t>(made->state())});
  return made;
}

CircuitBreaker::CircuitBreaker(CircuitBreakerOptions options)
    : o_(std::move(options)),
      behavior_(o_.failure_rate_threshold, o_.slow_call_rate_threshold),
      window_(SlidingWindow::Create(o_.window_kind, o_.window_size, o_.minimum_number_of_calls)),
      count_window_(dynamic_cast<const CountWindow*>(window_.get())),
      trial_window_(o_.permitted_calls_in_half_open, o_.permitted_calls_in_half_open) {}

// A timer that is firing now holds a strong reference, so this never runs
// while one is inside the breaker (unless it is that timer's own last one).
CircuitBreaker::~CircuitBreaker() {
  std::lock_guard lock(mu_);
  DisarmOpenTimerLocked();
}

// ---- permission ------------------------------------------------------------

CircuitBreaker::Admission CircuitBreaker::Admit(TimePoint now) noexcept {
  // Loops at most through open -> half-open -> a trial permit, unless other
  // threads keep moving the state underneath.
  for (;;) {
    switch (state_.load(std::memory_order_acquire)) {
      case CircuitState::kClosed:
      case CircuitState::kDisabled:
      case CircuitState::kMetricsOnly: return Admission::kPermitted;
      case CircuitState::kForcedOpen: return Reject(Admission::kForcedOpen, now);
      case CircuitState::kOpen:
        if (!OpenWaitOver(now)) return Reject(Admission::kOpen, now);
        MoveIfDue(CircuitState::kOpen, CircuitState::kHalfOpen, now);
        break;
      case CircuitState::kHalfOpen:
        if (HalfOpenExpired(now)) {
          MoveIfDue(CircuitState::kHalfOpen, CircuitState::kOpen, now);
          break;
        }
        return TakeTrialPermit() ? Admission::kPermitted : Reject(Admission::kHalfOpenFull, now);
    }
  }
}

CircuitBreaker::Admission CircuitBreaker::Reject(Admission why, TimePoint now) noexcept {
  Event e{.kind = EventKind::kRejected, .policy = PolicyId::kCircuitBreaker, .reason = {}, .at = now};
  switch (why) {
    case Admission::kOpen:
      e.reason = "circuit open";
      e.duration = std::max(Duration::zero(), OpenUntil() - now);
      break;
    case Admission::kHalfOpenFull: e.reason = "circuit half-open: no trial permits left"; break;
    case Admission::kForcedOpen: e.reason = "circuit forced open"; break;
    case Admission::kPermitted: break;
  }
  Emit(o_.listener, e);
  return why;
}

Status CircuitBreaker::Acquire(TimePoint now) {
  if (AlwaysPermits(state())) return Status::Ok();
  const Admission a = Admit(now);
  return a == Admission::kPermitted ? Status::Ok() : RejectionStatus(a, now);
}

Status CircuitBreaker::RejectionStatus(Admission why, TimePoint now) const {
  RetryHints hints;
  hints.outcome = OutcomeClass::kOverloaded;
  std::string message;
  switch (why) {
    case Admission::kOpen: {
      const Duration left = std::max(Duration::zero(), OpenUntil() - now);
      message = "circuit open; retry in " + FormatDuration(left);
      hints.pushback = left;
      break;
    }
    case Admission::kHalfOpenFull:
      message =
          "circuit half-open; all " + std::to_string(o_.permitted_calls_in_half_open) + " trial calls are in flight";
      break;
    case Admission::kForcedOpen:
      message = "circuit forced open";
      hints.pushback_stop = true;
      break;
    case Admission::kPermitted: return Status::Ok();
  }
  return Status::Unavailable(std::move(message)).WithHints(hints).WithSource(kCircuitBreakerPolicy);
}

bool CircuitBreaker::TakeTrialPermit() noexcept {
  int left = trial_permits_.load(std::memory_order_relaxed);
  while (left > 0) {
    if (trial_permits_.compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void CircuitBreaker::ReleasePermission() noexcept {
  if (state() != CircuitState::kHalfOpen) return;
  // Capped: a permit taken in closed and released in half-open must not
  // create an extra trial.
  int left = trial_permits_.load(std::memory_order_relaxed);
  while (left < o_.permitted_calls_in_half_open) {
    if (trial_permits_.compare_exchange_weak(left, left + 1, std::memory_order_acq_rel)) return;
  }
}

TimePoint CircuitBreaker::OpenUntil() const noexcept {
  return TimePoint(Duration(open_until_ns_.load(std::memory_order_relaxed)));
}

bool CircuitBreaker::OpenWaitOver(TimePoint now) const noexcept { return now >= OpenUntil(); }

bool CircuitBreaker::HalfOpenExpired(TimePoint now) const noexcept {
  return Nanos(now) >= half_open_until_ns_.load(std::memory_order_relaxed);
}

// ---- results ---------------------------------------------------------------

void CircuitBreaker::Record(OutcomeClass outcome, Duration latency, TimePoint now) noexcept {
  const CircuitState s = state_.load(std::memory_order_acquire);
  if (o_.ignored_outcomes.contains(outcome)) {
    if (s == CircuitState::kHalfOpen) ReleasePermission();
    return;
  }
  const CallRecord call{.failure = o_.failure_outcomes.contains(outcome), .slow = latency > o_.slow_call_duration};
  switch (s) {
    case CircuitState::kClosed: RecordClosed(call, now); return;
    case CircuitState::kHalfOpen: RecordHalfOpen(call, now); return;
    case CircuitState::kMetricsOnly: RecordMetricsOnly(call, outcome, latency, now); return;
    case CircuitState::kOpen:
    case CircuitState::kForcedOpen:
    case CircuitState::kDisabled: return;  // nothing is judged in these states
  }
}

void CircuitBreaker::RecordClosed(CallRecord call, TimePoint now) noexcept {
  const WindowUpdate u = window_->Record(now, call);
  if (u.may_trip && behavior_.Evaluate(u.counts, o_.minimum_number_of_calls) != TripReason::kNone) {
    MoveIfDue(CircuitState::kClosed, CircuitState::kOpen, now);
  }
}

void CircuitBreaker::RecordHalfOpen(CallRecord call, TimePoint now) noexcept {
  const int trials = o_.permitted_calls_in_half_open;
  if (trial_window_.Record(now, call).counts.calls < trials) return;
  std::lock_guard lock(mu_);
  if (state_.load(std::memory_order_relaxed) != CircuitState::kHalfOpen) return;
  const WindowCounts c = trial_window_.Counts(now);
  if (c.calls < trials) return;  // a new half-open period began meanwhile
  const bool trip = behavior_.Evaluate(c, trials) != TripReason::kNone;
  EnterLocked(trip ? CircuitState::kOpen : CircuitState::kClosed, now);
}

void CircuitBreaker::RecordMetricsOnly(CallRecord call, OutcomeClass outcome, Duration latency,
                                       TimePoint now) noexcept {
  const WindowUpdate u = window_->Record(now, call);
  const TripReason r = behavior_.Evaluate(u.counts, o_.minimum_number_of_calls);
  Emit(o_.listener, Event{.kind = EventKind::kAttemptEnded,
                          .policy = PolicyId::kCircuitBreaker,
                          .reason = MetricsOnlyReason(r),
                          .at = now,
                          .outcome = outcome,
                          .duration = latency});
}

WindowMetrics CircuitBreaker::metrics(TimePoint now) const noexcept {
  return judging_trials_.load(std::memory_order_acquire) ? trial_window_.Metrics(now) : window_->Metrics(now);
}

// ---- transitions -----------------------------------------------------------

Status CircuitBreaker::MoveTo(CircuitState to, TimePoint now) {
  std::lock_guard lock(mu_);
  const CircuitState from = state_.load(std::memory_order_relaxed);
  if (from == to) return Status::Ok();
  if (!CircuitTransitionAllowed(from, to)) {
    return Status::FailedPrecondition("circuit breaker: " + std::string(CircuitTransitionName(from, to)) +
                                      " is not an allowed transition")
        .WithSource(kCircuitBreakerPolicy);
  }
  EnterLocked(to, now);
  return Status::Ok();
}

void CircuitBreaker::Reset(TimePoint now) {
  std::lock_guard lock(mu_);
  consecutive_opens_ = 0;
  window_->Reset();
  trial_window_.Reset();
  if (state_.load(std::memory_order_relaxed) != CircuitState::kClosed) {
    EnterLocked(CircuitState::kClosed, now);
  }
}

void CircuitBreaker::MoveIfDue(CircuitState from, CircuitState to, TimePoint now) noexcept {
  std::lock_guard lock(mu_);
  if (state_.load(std::memory_order_relaxed) != from) return;
  // Checked again under the lock: another thread may have closed this
  // period and begun a new one whose time has not come.
  if (from == CircuitState::kOpen && !OpenWaitOver(now)) return;
  if (from == CircuitState::kHalfOpen && !HalfOpenExpired(now)) return;
  EnterLocked(to, now);
}

void CircuitBreaker::EnterLocked(CircuitState to, TimePoint now) noexcept {
  const CircuitState from = state_.load(std::memory_order_relaxed);
  if (from == CircuitState::kOpen) DisarmOpenTimerLocked();
  Duration wait = Duration::zero();
  switch (to) {
    case CircuitState::kOpen:
      wait = OpenWait(++consecutive_opens_);
      open_until_ns_.store(Nanos(SaturatingAdd(now, wait)), std::memory_order_relaxed);
      judging_trials_.store(from == CircuitState::kHalfOpen, std::memory_order_relaxed);
      ArmOpenTimerLocked(SaturatingAdd(now, wait));
      break;
    case CircuitState::kHalfOpen:
      trial_window_.Reset();
      trial_permits_.store(o_.permitted_calls_in_half_open, std::memory_order_relaxed);
      half_open_until_ns_.store(o_.max_wait_in_half_open > Duration::zero()
                                    ? Nanos(SaturatingAdd(now, o_.max_wait_in_half_open))
                                    : Nanos(kInfiniteFuture),
                                std::memory_order_relaxed);
      judging_trials_.store(true, std::memory_order_relaxed);
      break;
    default:  // closed, forced_open, disabled, metrics_only: a fresh start
      consecutive_opens_ = 0;
      window_->Reset();
      judging_trials_.store(false, std::memory_order_relaxed);
      break;
  }
  state_.store(to, std::memory_order_release);
  Emit(o_.listener, Event{.kind = EventKind::kStateChanged,
                          .policy = PolicyId::kCircuitBreaker,
                          .from_state = static_cast<std::uint8_t>(from),
                          .to_state = static_cast<std::uint8_t>(to),
                          .at = now,
                          .duration = wait});
}

Duration CircuitBreaker::OpenWait(int consecutive_opens) const noexcept {
  return o_.wait_in_open_backoff ? o_.wait_in_open_backoff->Ceiling(consecutive_opens) : o_.wait_in_open;
}

}  // namespace stormguard
