// The hedge stage's asynchronous form: the blocking hedge driver's
// decisions (hedge/hedge_driver.cc), with branches for attempts and a timer
// for the delay. Everything is decided under the call's lock and done after
// it (an After list), since each action may run the call on this thread: a
// branch may report inline when started, a stop runs the loser's callbacks,
// and cancelling a timer waits for its callback, which takes the lock.
//
// A retry outside the hedge enters it again for its next attempt (a new
// round) while losers of the last round may still run: they are told apart
// by their branch not being in attempts_, and are only booked when they end.
#include "stormguard/pipeline/stages/hedge_stage.h"

#include <algorithm>
#include <mutex>

#include "stormguard/core/internal/call_helpers.h"
#include "stormguard/pipeline/async_branch.h"

namespace stormguard {
namespace {

constexpr int kMaxAttempts = 1 + HedgeOptions::kMaxHedgedAttempts;

class HedgeCall;

struct TimerSlot {
  HedgeCall* call = nullptr;
  AsyncTimerHandle handle;
  TimePoint at{};
  bool armed = false;  // scheduled, and neither fired nor cancelled yet
};

// A timer is only replaced by an earlier one when an attempt fails, at most
// once per attempt, and a replaced one is cancelled before its slot frees:
// one slot per attempt plus the current one always suffices.
constexpr int kTimerSlots = kMaxAttempts + 1;

struct Attempt {
  AsyncBranch* branch = nullptr;  // while it runs
  std::stop_source stop{std::nostopstate};
  TimePoint start{};
  bool running = false;
};

// What to do once the lock is released, in this order; finishing the call
// comes last, since the frame may be gone after it.
struct After {
  struct Cancel {
    TimerSlot* slot;
    AsyncTimerHandle handle;
  };
  Cancel cancels[kTimerSlots];
  int n_cancels = 0;
  struct Stop {
    std::stop_source source{std::nostopstate};  // a default one would allocate its state
  };
  Stop stops[kMaxAttempts];
  int n_stops = 0;
  AsyncBranch* starts[kMaxAttempts] = {};
  int n_starts = 0;
  bool finish = false;
};

class HedgeCall final : public AsyncBranchOwner {
 public:
  void Start(const HedgeStage& stage, AsyncStep step);
  void EndInline(Status inner);

  bool MayStartAttempt(AsyncBranch& branch) override;
  void AttemptStartReturned() override;
  void BranchEnded(AsyncBranch& branch, Status status) override;

 private:
  static void OnTimer(void* arg) noexcept;
  void Pump(TimePoint now, After& after);
  void NewAttempt(int i, TimePoint now, After& after);
  void Launch(TimePoint now, After& after);
  void ArmTimer(TimePoint due, After& after);
  void Win(int i, AsyncBranch& branch, Status status, OutcomeClass outcome, TimePoint end, After& after);
  void StopLaunching(After& after);
  void CheckDone(After& after);
  void Answer(Status answer, bool downstream_gave_up, After& after);
  void Run(After& after);
  void Finish();
  void Book(AsyncBranch& branch, OutcomeClass outcome, TimePoint end);
  void Report(EventKind kind, std::string_view reason, TimePoint at, int attempt, OutcomeClass outcome,
              Duration d) const noexcept;

  const HedgePolicy* policy_ = nullptr;
  AsyncStep step_;
  AsyncTimers* timers_ = nullptr;  // the call's; set once, so threads of earlier rounds read it unlocked
  int base_attempt_ = 1;
  TimePoint inline_start_{};
  std::mutex mu_;
  HedgeState state_;
  HedgeStop stop_ = HedgeStop::kNone;  // the last reason a hedge was held back, or kFatal
  Attempt attempts_[kMaxAttempts];
  TimerSlot slots_[kTimerSlots];
  TimerSlot* current_ = nullptr;  // the timer the next decision waits for
  int in_flight_ = 0;
  int starting_ = 0;        // attempts inside their start-up
  std::uint32_t calls_ = 0;  // attempts started
  int winner_ = -1;
  bool launching_done_ = false;
  bool done_ = false;            // the answer is chosen
  bool finish_pending_ = false;  // chosen while an attempt was starting: its starter finishes
  Status last_failure_;
  bool last_failure_gave_up_ = false;
  Status answer_;
  bool answer_gave_up_ = false;
};

void HedgeCall::Report(EventKind kind, std::string_view reason, TimePoint at, int attempt, OutcomeClass outcome,
                       Duration d) const noexcept {
  Emit(policy_->options().listener, Event{.kind = kind, .policy = "hedge", .reason = reason, .at = at,
                                          .attempt = attempt, .outcome = outcome, .duration = d});
}

void HedgeCall::Start(const HedgeStage& stage, AsyncStep step) {
  const CallContext& ctx = step.ctx();
  Clock& clock = step.clock();
  const TimePoint now = clock.Now();
  if (RetryBudget* b = stage.policy().budget()) b->OnRequestStart(clock.CoarseNow());
  const HedgeStop why = stage.policy().CheckCall(ctx, now);
  After after;
  {
    // A new round; the timer slots, and attempts still starting, carry over.
    std::lock_guard lock(mu_);
    policy_ = &stage.policy();
    step_ = step;
    if (timers_ == nullptr) timers_ = &step.timers();
    base_attempt_ = ctx.attempt;
    state_ = HedgeState{};
    stop_ = why;
    std::fill(attempts_, attempts_ + kMaxAttempts, Attempt{});
    in_flight_ = 0;
    calls_ = 0;
    winner_ = -1;
    launching_done_ = done_ = false;
    last_failure_ = answer_ = Status::Ok();
    last_failure_gave_up_ = answer_gave_up_ = false;
    if (why != HedgeStop::kNone) {  // a plain single attempt, in the call itself
      winner_ = 0;
      done_ = true;
      inline_start_ = now;
    } else {
      NewAttempt(0, now, after);
      state_.last_launch = now;
      Pump(now, after);
    }
  }
  if (why != HedgeStop::kNone) return step.RunInner();
  Run(after);
}

void HedgeCall::EndInline(Status inner) {
  Clock& clock = step_.clock();
  const TimePoint end = clock.Now();
  const TimePoint coarse = clock.CoarseNow();
  const OutcomeClass outcome = policy_->Classify(inner);
  policy_->RecordOutcome(outcome, coarse);
  if (outcome == OutcomeClass::kSuccess && policy_->latency() != nullptr) {
    policy_->latency()->Record(end - inline_start_, coarse);
  }
  Report(EventKind::kAttemptEnded, {}, end, base_attempt_, outcome, end - inline_start_);
  answer_ = std::move(inner);
  Finish();
}

void HedgeCall::NewAttempt(int i, TimePoint now, After& after) {
  AsyncBranch& b = step_.Branch(*this);
  b.ctx().attempt = base_attempt_ + i;
  b.index = i;
  b.started = now;
  Attempt& a = attempts_[i];
  a = Attempt{.branch = &b, .stop = b.stop_source(), .start = now, .running = true};
  ++in_flight_;
  after.starts[after.n_starts++] = &b;
}

void HedgeCall::Pump(TimePoint now, After& after) {
  while (!done_ && !launching_done_) {
    const HedgeDecision d = policy_->Decide(state_, step_.ctx(), now);
    if (d.reason != HedgeStop::kNone) stop_ = d.reason;
    if (d.action == HedgeAction::kStop) {
      StopLaunching(after);
      break;
    }
    if (d.action == HedgeAction::kWait) {
      if (d.wait != kInfiniteDuration) ArmTimer(SaturatingAdd(now, d.wait), after);
      break;
    }
    Launch(now, after);
  }
  CheckDone(after);
}

void HedgeCall::Launch(TimePoint now, After& after) {
  const int i = state_.launched;
  const Duration since = now - state_.last_launch;
  NewAttempt(i, now, after);
  state_.launched = i + 1;
  state_.last_launch = now;
  state_.failed_since_last_launch = false;
  state_.not_before = kInfinitePast;
  Report(EventKind::kHedgeLaunched, {}, now, base_attempt_ + i, OutcomeClass::kSuccess, since);
}

void HedgeCall::ArmTimer(TimePoint due, After& after) {
  if (current_ != nullptr) {
    if (current_->at <= due) return;  // it fires first and plans again
    after.cancels[after.n_cancels++] = {current_, current_->handle};
    current_ = nullptr;
  }
  TimerSlot* slot = std::find_if(slots_, slots_ + kTimerSlots, [](const TimerSlot& t) { return !t.armed; });
  *slot = TimerSlot{.call = this, .at = due, .armed = true};
  slot->handle = timers_->Schedule(due, &HedgeCall::OnTimer, slot);
  current_ = slot;
}

void HedgeCall::OnTimer(void* arg) noexcept {
  auto* slot = static_cast<TimerSlot*>(arg);
  HedgeCall& call = *slot->call;
  After after;
  {
    std::lock_guard lock(call.mu_);
    slot->armed = false;
    if (call.current_ == slot) call.current_ = nullptr;
    call.Pump(call.step_.clock().Now(), after);
  }
  call.Run(after);
}

void HedgeCall::StopLaunching(After& after) {
  launching_done_ = true;
  if (current_ != nullptr) after.cancels[after.n_cancels++] = {current_, current_->handle};
  current_ = nullptr;
}

void HedgeCall::CheckDone(After& after) {
  if (!done_ && launching_done_ && in_flight_ == 0) Answer(last_failure_, last_failure_gave_up_, after);
}

void HedgeCall::Answer(Status answer, bool downstream_gave_up, After& after) {
  done_ = true;
  answer_ = std::move(answer);
  answer_gave_up_ = downstream_gave_up;
  StopLaunching(after);
  if (starting_ > 0) {
    finish_pending_ = true;  // the caller's callable is still running: it must return first
  } else {
    after.finish = true;
  }
}

bool HedgeCall::MayStartAttempt(AsyncBranch& branch) {
  std::lock_guard lock(mu_);
  if (done_ || attempts_[branch.index].branch != &branch) return false;
  ++starting_;
  ++calls_;
  return true;
}

void HedgeCall::AttemptStartReturned() {
  bool finish = false;
  {
    std::lock_guard lock(mu_);
    --starting_;
    if (starting_ == 0 && finish_pending_) {
      finish_pending_ = false;
      finish = true;
    }
  }
  if (finish) Finish();
}

void HedgeCall::BranchEnded(AsyncBranch& branch, Status status) {
  After after;
  {
    std::lock_guard lock(mu_);  // a new round may be setting up: read even the policy under it
    Clock& clock = step_.clock();
    const TimePoint end = clock.Now();
    const OutcomeClass outcome = policy_->Classify(status);
    Book(branch, outcome, end);
    const int i = branch.index;
    Attempt& a = attempts_[i];
    if (a.branch != &branch) return;  // a loser of an earlier round
    a.running = false;
    a.branch = nullptr;
    --in_flight_;
    if (done_) return;  // a loser: the answer is already chosen
    if (outcome == OutcomeClass::kSuccess && policy_->latency() != nullptr) {
      policy_->latency()->Record(end - a.start, clock.CoarseNow());
    }
    if (outcome == OutcomeClass::kSuccess || !policy_->IsNonFatal(outcome)) {
      Win(i, branch, std::move(status), outcome, end, after);
    } else {  // non-fatal: the next hedge goes at once, or after the server's pushback
      const RetryHints& hints = status.hints();
      if (hints.pushback_stop) state_.pushback_stop = true;
      if (hints.pushback) {
        state_.not_before = SaturatingAdd(
            end, std::clamp(*hints.pushback, Duration::zero(), policy_->options().max_pushback));
      }
      state_.failed_since_last_launch = true;
      last_failure_ = std::move(status);
      last_failure_gave_up_ = branch.ctx().downstream_gave_up;
      Pump(end, after);
    }
  }
  Run(after);
}

// Every attempt that ends is booked with the budget and reported.
void HedgeCall::Book(AsyncBranch& branch, OutcomeClass outcome, TimePoint end) {
  const TimePoint coarse = step_.clock().CoarseNow();
  policy_->RecordOutcome(outcome, coarse);
  if (RetryBudget* b = policy_->budget(); b != nullptr && branch.index > 0) b->OnRetryEnd(coarse);
  Report(EventKind::kAttemptEnded, {}, end, branch.ctx().attempt, outcome, end - branch.started);
}

void HedgeCall::Win(int i, AsyncBranch& branch, Status status, OutcomeClass outcome, TimePoint end,
                    After& after) {
  winner_ = i;
  if (i > 0) Report(EventKind::kHedgeWon, {}, end, base_attempt_ + i, outcome, end - attempts_[0].start);
  if (outcome == OutcomeClass::kSuccess) {
    branch.AdoptValue();
  } else {
    stop_ = HedgeStop::kFatal;
  }
  for (int j = 0; j < state_.launched; ++j) {
    const Attempt& a = attempts_[j];
    if (!a.running) continue;
    // Launched before the winner and still running: slower than it; its
    // elapsed time is a lower bound of its latency.
    if (j < i && policy_->latency() != nullptr) policy_->latency()->Record(end - a.start, step_.clock().CoarseNow());
    after.stops[after.n_stops++].source = a.stop;
  }
  Answer(std::move(status), branch.ctx().downstream_gave_up, after);
}

void HedgeCall::Run(After& after) {
  for (int k = 0; k < after.n_cancels; ++k) {
    After::Cancel& c = after.cancels[k];
    if (timers_->Cancel(c.handle)) {
      std::lock_guard lock(mu_);
      c.slot->armed = false;
    }  // else its callback ran, and disarmed the slot
  }
  for (int k = 0; k < after.n_stops; ++k) after.stops[k].source.request_stop();
  for (int k = 0; k < after.n_starts; ++k) after.starts[k]->Start();
  if (after.finish) Finish();
}

// Once per call, by one thread, after the answer was chosen: nothing that
// Finish reads changes any more.
void HedgeCall::Finish() {
  Clock& clock = step_.clock();
  CallContext& ctx = step_.ctx();
  if (RetryBudget* b = policy_->budget()) b->OnRequestEnd(clock.CoarseNow());
  if (answer_gave_up_) ctx.downstream_gave_up = true;
  step_.AddCalls(calls_);
  Status answer = std::move(answer_);
  if (!answer.ok()) {
    if (winner_ < 0 && HedgePolicy::GivesUpForTheChain(stop_)) core_internal::MarkGaveUp(answer, ctx);
    Report(EventKind::kGaveUp, HedgeStopName(stop_), clock.Now(), base_attempt_, policy_->Classify(answer),
           Duration::zero());
  }
  step_.Finish(std::move(answer));
}

}  // namespace

AsyncStateLayout HedgeStage::async_state() const noexcept { return AsyncStateLayout::Of<HedgeCall>(); }

void HedgeStage::Start(AsyncStep step) const { step.state<HedgeCall>().Start(*this, step); }

// Only a call that could never hedge comes back here: branches report to
// HedgeCall::BranchEnded.
void HedgeStage::Resume(AsyncStep step, Status inner) const { step.state<HedgeCall>().EndInline(std::move(inner)); }

}  // namespace stormguard
