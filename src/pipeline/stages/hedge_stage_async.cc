// The hedge stage's asynchronous form: a HedgeSession (hedge/hedge_session.h)
// decides, as under the blocking driver; this driver starts branches for
// attempts and keeps a timer for the delay. Everything is decided under the
// call's lock and done after it (an After list), since each action may run
// the call on this thread: a branch may report inline when started, a stop
// runs the loser's callbacks, and cancelling a timer waits for its
// callback, which takes the lock.
//
// A retry outside the hedge enters it again for its next attempt (a new
// round, a new session) while losers of the last round may still run: they
// are told apart by their branch not being in branches_, and are only
// booked when they end.
#include "stormguard/pipeline/stages/hedge_stage.h"

#include <algorithm>
#include <mutex>

#include "stormguard/hedge/hedge_session.h"
#include "stormguard/pipeline/async_branch.h"

namespace stormguard {
namespace {

constexpr int kMaxAttempts = HedgeSession::kMaxAttempts;

class AsyncHedge;

struct TimerSlot {
  AsyncHedge* call = nullptr;
  AsyncTimerHandle handle;
  bool armed = false;  // scheduled, and neither fired nor cancelled yet
};

// A timer is only replaced by an earlier one when an attempt fails, at most
// once per attempt, and a replaced one is cancelled before its slot frees:
// one slot per attempt plus the current one always suffices.
constexpr int kTimerSlots = kMaxAttempts + 1;

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

// The budget's time: read only when there is a budget to tell it.
TimePoint BooksNow(const HedgePolicy& policy, Clock& clock) noexcept {
  return policy.budget() != nullptr ? clock.CoarseNow() : TimePoint{};
}

class AsyncHedge final : public AsyncBranchOwner {
 public:
  void Start(const HedgeStage& stage, AsyncStep step);
  void EndInline(Status inner);

  bool MayStartAttempt(AsyncBranch& branch) override;
  void AttemptStartReturned() override;
  void BranchEnded(AsyncBranch& branch, Status status) override;

 private:
  static void OnTimer(void* arg) noexcept;
  void Do(const HedgeActions& a, After& after);
  void CancelCurrentTimer(After& after);
  void Answered(After& after);
  void Run(After& after);
  void Finish();

  AsyncStep step_;
  AsyncTimers* timers_ = nullptr;  // the call's; set once, so threads of earlier rounds read it unlocked
  TimePoint inline_start_{};
  std::mutex mu_;
  HedgeSession session_;
  AsyncBranch* branches_[kMaxAttempts] = {};  // this round's, while each runs
  TimerSlot slots_[kTimerSlots];
  TimerSlot* current_ = nullptr;  // the timer the session waits for
  int starting_ = 0;              // attempts inside their start-up
  std::uint32_t calls_ = 0;       // attempts started
  bool finish_pending_ = false;   // answered while an attempt was starting: its starter finishes
  Status last_failure_;
  bool last_failure_gave_up_ = false;
  Status answer_;
  bool answer_gave_up_ = false;
};

void AsyncHedge::Start(const HedgeStage& stage, AsyncStep step) {
  Clock& clock = step.clock();
  const TimePoint now = clock.Now();
  After after;
  bool hedged = false;
  {
    // A new round; the timer slots, and attempts still starting, carry over.
    std::lock_guard lock(mu_);
    step_ = step;
    if (timers_ == nullptr) timers_ = &step.timers();
    session_ = HedgeSession(stage.policy(), step.ctx());
    std::fill(branches_, branches_ + kMaxAttempts, nullptr);
    calls_ = 0;
    last_failure_ = answer_ = Status::Ok();
    last_failure_gave_up_ = answer_gave_up_ = false;
    HedgeActions a;
    hedged = session_.Begin(now, BooksNow(stage.policy(), clock), a);
    if (hedged) Do(a, after);
    inline_start_ = now;
  }
  if (!hedged) return step.RunInner();  // a plain single attempt, in the call itself
  Run(after);
}

void AsyncHedge::EndInline(Status inner) {
  Clock& clock = step_.clock();
  session_.OnInlineEnd(inner, inline_start_, clock.Now(), clock.CoarseNow());
  answer_ = std::move(inner);
  Finish();
}

// The session's actions, under the lock; what may run the call goes to `after`.
void AsyncHedge::Do(const HedgeActions& a, After& after) {
  if (a.cancel_timer || a.arm_timer) CancelCurrentTimer(after);
  if (a.arm_timer) {
    TimerSlot* slot = std::find_if(slots_, slots_ + kTimerSlots, [](const TimerSlot& t) { return !t.armed; });
    *slot = TimerSlot{.call = this, .armed = true};
    slot->handle = timers_->Schedule(a.timer_at, &AsyncHedge::OnTimer, slot);
    current_ = slot;
  }
  for (int j = 0; j < kMaxAttempts; ++j) {
    if ((a.cancel >> j) & 1U) after.stops[after.n_stops++].source = branches_[j]->stop_source();
  }
  for (int i = a.launch_first; i < a.launch_end; ++i) {
    AsyncBranch& b = step_.Branch(*this);
    b.ctx().attempt = step_.ctx().attempt + i;
    b.index = i;
    b.started = session_.started(i);
    branches_[i] = &b;
    after.starts[after.n_starts++] = &b;
  }
  if (a.answered) Answered(after);
}

void AsyncHedge::CancelCurrentTimer(After& after) {
  if (current_ != nullptr) after.cancels[after.n_cancels++] = {current_, current_->handle};
  current_ = nullptr;
}

void AsyncHedge::OnTimer(void* arg) noexcept {
  auto* slot = static_cast<TimerSlot*>(arg);
  AsyncHedge& call = *slot->call;
  After after;
  {
    std::lock_guard lock(call.mu_);
    slot->armed = false;
    const bool current = call.current_ == slot;
    if (current) call.current_ = nullptr;
    HedgeActions a;
    call.session_.OnTimer(call.step_.clock().Now(), current, a);
    call.Do(a, after);
  }
  call.Run(after);
}

// The session chose the answer: a winner's status is in answer_ already;
// else every attempt failed and the last failure answers.
void AsyncHedge::Answered(After& after) {
  if (session_.winner() < 0) {
    answer_ = std::move(last_failure_);
    answer_gave_up_ = last_failure_gave_up_;
  }
  if (starting_ > 0) {
    finish_pending_ = true;  // the caller's callable is still running: it must return first
  } else {
    after.finish = true;
  }
}

bool AsyncHedge::MayStartAttempt(AsyncBranch& branch) {
  std::lock_guard lock(mu_);
  if (session_.answered() || branches_[branch.index] != &branch) return false;
  ++starting_;
  ++calls_;
  return true;
}

void AsyncHedge::AttemptStartReturned() {
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

void AsyncHedge::BranchEnded(AsyncBranch& branch, Status status) {
  After after;
  {
    std::lock_guard lock(mu_);  // a new round may be setting up: read even the session under it
    Clock& clock = step_.clock();
    const TimePoint end = clock.Now();
    const TimePoint coarse = clock.CoarseNow();
    const int i = branch.index;
    if (branches_[i] != &branch) {  // a loser of an earlier round
      return session_.OnStrayAttemptEnd(branch.ctx().attempt, i > 0, status, end - branch.started, end, coarse);
    }
    branches_[i] = nullptr;
    HedgeActions a;
    const HedgeVerdict v = session_.OnAttemptEnd(i, status, end, coarse, a);
    if (v == HedgeVerdict::kSucceeded) branch.AdoptValue();
    if (v == HedgeVerdict::kSucceeded || v == HedgeVerdict::kFatal) {
      answer_ = std::move(status);
      answer_gave_up_ = branch.ctx().downstream_gave_up;
    } else if (v == HedgeVerdict::kFailed) {
      last_failure_ = std::move(status);
      last_failure_gave_up_ = branch.ctx().downstream_gave_up;
    }
    Do(a, after);
  }
  Run(after);
}

void AsyncHedge::Run(After& after) {
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

// Once per round, by one thread, after the answer was chosen: nothing that
// Finish reads changes any more.
void AsyncHedge::Finish() {
  Clock& clock = step_.clock();
  step_.AddCalls(calls_);
  Status answer = std::move(answer_);
  session_.Finish(answer, answer_gave_up_, answer.ok() ? TimePoint{} : clock.Now(), BooksNow(session_.policy(), clock));
  step_.Finish(std::move(answer));
}

}  // namespace

AsyncStateLayout HedgeStage::async_state() const noexcept { return AsyncStateLayout::Of<AsyncHedge>(); }

void HedgeStage::Start(AsyncStep step) const { step.state<AsyncHedge>().Start(*this, step); }

// Only a call that could never hedge comes back here: branches report to
// AsyncHedge::BranchEnded.
void HedgeStage::Resume(AsyncStep step, Status inner) const { step.state<AsyncHedge>().EndInline(std::move(inner)); }

}  // namespace stormguard
