#include "stormguard/hedge/hedge_driver.h"

#include <algorithm>
#include <string>
#include <utility>

namespace stormguard::hedge_internal {
namespace {

// Idempotency keys of primary attempts' contexts. A thread keeps a few
// buffers with their capacity, so copying a key longer than the short-string
// buffer (a UUID) into the primary's context allocates nothing once warm.
// Several, for hedged calls nested on one thread.
struct KeyBuffers {
  static constexpr std::size_t kSize = 4;
  std::string items[kSize];
  std::size_t size = 0;
};

KeyBuffers& ThreadKeyBuffers() noexcept {
  thread_local KeyBuffers buffers;
  return buffers;
}

std::string TakeKeyBuffer() noexcept {
  KeyBuffers& b = ThreadKeyBuffers();
  return b.size > 0 ? std::move(b.items[--b.size]) : std::string();
}

void ReturnKeyBuffer(std::string&& key) noexcept {
  KeyBuffers& b = ThreadKeyBuffers();
  if (b.size < KeyBuffers::kSize) b.items[b.size++] = std::move(key);
}

}  // namespace

HedgeCallBase::HedgeCallBase(const HedgePolicy& policy, CallContext& ctx, Executor& ex,
                             HedgeRun* run) noexcept
    : policy_(policy), caller_(ctx), ex_(ex), timers_(ex.timers()), clock_(ex.clock()),
      run_(run != nullptr ? *run : local_run_) {
  run_ = HedgeRun{};
}

HedgeCallBase::~HedgeCallBase() {
  // The primary started on this thread and its context was filled from a
  // buffer of this thread's (StartAttempt).
  if (primary_source_.has_value()) ReturnKeyBuffer(std::move(attempts_[0].ctx.idempotency_key));
}

void HedgeCallBase::Report(EventKind kind, std::string_view reason, TimePoint at, int i,
                           OutcomeClass outcome, Duration d) const noexcept {
  Emit(policy_.options().listener, Event{.kind = kind, .policy = "hedge", .reason = reason, .at = at,
                                         .attempt = caller_.attempt + i, .outcome = outcome, .duration = d});
}

bool HedgeCallBase::Begin() {
  const TimePoint now = clock_.Now();
  if (RetryBudget* b = policy_.budget()) b->OnRequestStart(clock_.CoarseNow());
  run_.attempts = 1;
  const HedgeStop why = policy_.CheckCall(caller_, now);
  if (why != HedgeStop::kNone) {
    run_.stop = why;
    return false;
  }
  std::lock_guard lock(mu_);
  StartAttempt(0, now);
  state_.last_launch = now;
  Pump(now);
  return true;
}

void HedgeCallBase::EndInline(const Status& status, TimePoint start) noexcept {
  const TimePoint end = clock_.Now();
  const TimePoint coarse = clock_.CoarseNow();
  const OutcomeClass outcome = policy_.Classify(status);
  policy_.RecordOutcome(outcome, coarse);
  if (outcome == OutcomeClass::kSuccess && policy_.latency() != nullptr) {
    policy_.latency()->Record(end - start, coarse);
  }
  Report(EventKind::kAttemptEnded, {}, end, 0, outcome, end - start);
  winner_ = 0;  // a plain single attempt: its result is the answer
  run_.winner = 1;
  if (RetryBudget* b = policy_.budget()) b->OnRequestEnd(coarse);
}

void HedgeCallBase::StartAttempt(int i, TimePoint now) {
  Attempt& a = attempts_[i];
  if (i == 0) a.ctx.idempotency_key = TakeKeyBuffer();  // its capacity takes the copy below
  a.ctx = caller_;
  a.ctx.attempt = caller_.attempt + i;
  if (i == 0) {
    primary_source_.emplace();  // on the caller's thread, whose pool it returns to
    a.stop = primary_source_->source();
  } else {
    a.stop = std::stop_source();
  }
  a.ctx.stop = a.stop.get_token();
  a.link.emplace(caller_.stop, ForwardStop{&a.stop});
  a.start = now;
  a.running = true;
  ++in_flight_;
}

void HedgeCallBase::Pump(TimePoint now) {
  while (!done_ && !launching_done_) {
    const HedgeDecision d = policy_.Decide(state_, caller_, now);
    if (d.reason != HedgeStop::kNone) run_.stop = d.reason;
    if (d.action == HedgeAction::kStop) {
      StopLaunching();
      break;
    }
    if (d.action == HedgeAction::kWait) {
      if (d.wait != kInfiniteDuration) ArmTimer(SaturatingAdd(now, d.wait));
      break;
    }
    Launch(now);
  }
  CheckDone();
}

void HedgeCallBase::Launch(TimePoint now) {
  const int i = state_.launched;
  const Duration since = now - state_.last_launch;
  StartAttempt(i, now);
  if (!ex_.TrySubmit([this, i] { RunAttempt(i); })) {
    attempts_[i].running = false;
    attempts_[i].link.reset();
    --in_flight_;
    if (RetryBudget* b = policy_.budget()) b->OnRetryEnd(clock_.CoarseNow());  // charged, never ran
    run_.stop = HedgeStop::kExecutorBusy;
    StopLaunching();
    return;
  }
  state_.launched = i + 1;
  state_.last_launch = now;
  state_.failed_since_last_launch = false;
  state_.not_before = kInfinitePast;
  run_.attempts = i + 1;
  Report(EventKind::kHedgeLaunched, {}, now, i, OutcomeClass::kSuccess, since);
}

void HedgeCallBase::ArmTimer(TimePoint due) {
  if (timer_outstanding_) {
    if (timer_at_ <= due) return;                    // it fires first and plans again
    if (!TimerService::TryCancel(timer_)) return;    // firing right now: it plans again
    timer_outstanding_ = false;
  }
  timer_ = timers_.Schedule(due, &HedgeCallBase::OnTimer, this);
  timer_at_ = due;
  timer_outstanding_ = true;
}

// On the timer's thread. Until it takes the lock the timer counts as
// outstanding, so the call (and `self`) outlives it.
void HedgeCallBase::OnTimer(void* self) noexcept {
  auto* call = static_cast<HedgeCallBase*>(self);
  std::lock_guard lock(call->mu_);
  call->timer_outstanding_ = false;
  call->Pump(call->clock_.Now());
  call->cv_.notify_all();
}

// TryCancel, not Cancel: this runs under mu_, which a firing callback waits for.
void HedgeCallBase::CancelTimer() noexcept {
  if (timer_outstanding_ && TimerService::TryCancel(timer_)) timer_outstanding_ = false;
}

void HedgeCallBase::StopLaunching() noexcept {
  launching_done_ = true;
  CancelTimer();
}

void HedgeCallBase::CheckDone() noexcept {
  if (!done_ && launching_done_ && in_flight_ == 0) done_ = true;
}

void HedgeCallBase::RunAttempt(int i) noexcept {
  {
    std::lock_guard lock(mu_);
    if (done_) {  // answered while this hedge waited for a worker: skip it
      attempts_[i].running = false;
      --in_flight_;
      if (RetryBudget* b = policy_.budget(); b != nullptr && i > 0) b->OnRetryEnd(clock_.CoarseNow());
      cv_.notify_all();
      return;
    }
  }
  const Status& status = Invoke(i, attempts_[i].ctx);
  const TimePoint end = clock_.Now();
  const OutcomeClass outcome = policy_.Classify(status);
  std::lock_guard lock(mu_);
  OnAttemptEnd(i, status, outcome, end);
  cv_.notify_all();
}

void HedgeCallBase::OnAttemptEnd(int i, const Status& status, OutcomeClass outcome, TimePoint end) {
  Attempt& a = attempts_[i];
  a.running = false;
  --in_flight_;
  const TimePoint coarse = clock_.CoarseNow();
  policy_.RecordOutcome(outcome, coarse);
  if (RetryBudget* b = policy_.budget(); b != nullptr && i > 0) b->OnRetryEnd(coarse);
  Report(EventKind::kAttemptEnded, {}, end, i, outcome, end - a.start);
  if (done_) return;  // a loser: the answer is already chosen
  if (outcome == OutcomeClass::kSuccess && policy_.latency() != nullptr) {
    policy_.latency()->Record(end - a.start, coarse);
  }
  if (outcome == OutcomeClass::kSuccess || !policy_.IsNonFatal(outcome)) {
    Win(i, outcome, end);
    return;
  }
  // Non-fatal: the next hedge goes at once, or after the server's pushback.
  last_failure_ = i;
  state_.failed_since_last_launch = true;
  const RetryHints& hints = status.hints();
  if (hints.pushback_stop) state_.pushback_stop = true;
  if (hints.pushback) {
    state_.not_before =
        SaturatingAdd(end, std::clamp(*hints.pushback, Duration::zero(), policy_.options().max_pushback));
  }
  Pump(end);
}

void HedgeCallBase::Win(int i, OutcomeClass outcome, TimePoint end) {
  done_ = true;
  winner_ = i;
  answered_at_ = end;
  run_.winner = i + 1;
  if (outcome != OutcomeClass::kSuccess) run_.stop = HedgeStop::kFatal;
  if (i > 0) Report(EventKind::kHedgeWon, {}, end, i, outcome, end - attempts_[0].start);
  for (int j = 0; j < state_.launched; ++j) {
    Attempt& a = attempts_[j];
    if (!a.running) continue;
    // Launched before the winner and still running: slower than it. Its
    // elapsed time is a lower bound of its latency, worth recording.
    if (j < i && policy_.latency() != nullptr) policy_.latency()->Record(end - a.start, clock_.CoarseNow());
    a.stop.request_stop();
    ++run_.cancelled;
  }
  StopLaunching();
}

int HedgeCallBase::AwaitEnd() {
  // The caller's stop must wake the wait; registered before locking, since
  // it runs at once (and locks mu_) if the stop was already requested.
  const std::stop_callback wake(caller_.stop, [this] {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  });
  std::unique_lock lock(mu_);
  ex_.Wait(lock, cv_, [this] { return Quiet() || caller_.stop.stop_requested(); });
  if (!Quiet()) {
    // The caller cancelled: running attempts heard it through their links;
    // launch nothing more, then wait for them to return.
    if (!launching_done_) {
      run_.stop = HedgeStop::kCancelled;
      StopLaunching();
    }
    CheckDone();
    ex_.Wait(lock, cv_, [this] { return Quiet(); });
  }
  if (winner_ >= 0 && run_.cancelled > 0) run_.loser_wait = clock_.Now() - answered_at_;
  if (RetryBudget* b = policy_.budget()) b->OnRequestEnd(clock_.CoarseNow());
  const int answer = winner_ >= 0 ? winner_ : last_failure_;
  if (attempts_[answer].ctx.downstream_gave_up) caller_.downstream_gave_up = true;
  return answer;
}

void HedgeCallBase::Finish(Status& answer) noexcept {
  if (answer.ok()) return;
  if (winner_ < 0 && HedgePolicy::GivesUpForTheChain(run_.stop)) core_internal::MarkGaveUp(answer, caller_);
  Report(EventKind::kGaveUp, HedgeStopName(run_.stop), clock_.Now(), 0, policy_.Classify(answer),
       Duration::zero());
}

}  // namespace stormguard::hedge_internal
