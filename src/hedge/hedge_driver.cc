#include "stormguard/hedge/hedge_driver.h"

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

BlockingHedgeBase::BlockingHedgeBase(const HedgePolicy& policy, CallContext& ctx, Executor& ex, HedgeRun* run) noexcept
    : caller_(ctx),
      ex_(ex),
      timers_(ex.timers()),
      clock_(ex.clock()),
      run_(run != nullptr ? *run : local_run_),
      session_(policy, ctx) {
  run_ = HedgeRun{};
}

BlockingHedgeBase::~BlockingHedgeBase() {
  // The primary started on this thread and its context was filled from a
  // buffer of this thread's (StartAttempt).
  if (primary_source_.has_value()) ReturnKeyBuffer(std::move(attempts_[0].ctx.idempotency_key));
}

bool BlockingHedgeBase::Begin() {
  HedgeActions a;
  const bool hedged = session_.Begin(clock_.Now(), BooksNow(), a);
  if (hedged) {
    std::lock_guard lock(mu_);
    Do(a);
  }
  run_.attempts = 1;
  run_.stop = session_.stop();
  return hedged;
}

void BlockingHedgeBase::EndInline(const Status& status, TimePoint start) noexcept {
  session_.OnInlineEnd(status, start, clock_.Now(), clock_.CoarseNow());
  run_.winner = 1;
}

// The session's actions, in its order. Hedges are submitted under mu_: a
// worker that picks one up waits for the lock, so it sees the session's
// books of its launch.
void BlockingHedgeBase::Do(const HedgeActions& a) {
  if (a.cancel_timer) CancelTimer();
  if (a.arm_timer) ArmTimer(a.timer_at);
  for (int j = 0; j < HedgeSession::kMaxAttempts; ++j) {
    if ((a.cancel >> j) & 1U) attempts_[j].stop.request_stop();
  }
  for (int i = a.launch_first; i < a.launch_end; ++i) {
    StartAttempt(i);
    if (i == 0) continue;  // the caller's thread runs the primary
    if (!ex_.TrySubmit([this, i] { RunAttempt(i); })) {
      attempts_[i].link.reset();
      HedgeActions refused;
      session_.OnLaunchRefused(i, BooksNow(), refused);
      Do(refused);
      return;
    }
  }
}

void BlockingHedgeBase::StartAttempt(int i) {
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
}

void BlockingHedgeBase::ArmTimer(TimePoint due) {
  if (timer_outstanding_) {
    if (!TimerService::TryCancel(timer_)) return;  // firing right now: it decides again
    timer_outstanding_ = false;
  }
  timer_ = timers_.Schedule(due, &BlockingHedgeBase::OnTimer, this);
  timer_outstanding_ = true;
}

// On the timer's thread, which must not run user code: the decision may
// report a launch to the policy's listener, so a worker makes it. Until
// OnTimerDue takes the lock the timer counts as outstanding, so the call
// (and `self`) outlives it.
void BlockingHedgeBase::OnTimer(void* self) noexcept {
  auto* call = static_cast<BlockingHedgeBase*>(self);
  if (TimerService::OnBackgroundThread() && call->ex_.TrySubmit([call] { call->OnTimerDue(); })) return;
  call->OnTimerDue();  // in RunDue, or the queue is full: decide here
}

void BlockingHedgeBase::OnTimerDue() noexcept {
  std::lock_guard lock(mu_);
  timer_outstanding_ = false;
  HedgeActions a;
  session_.OnTimer(clock_.Now(), /*current=*/true, a);
  Do(a);
  cv_.notify_all();
}

// TryCancel, not Cancel: this runs under mu_, which a firing callback waits for.
void BlockingHedgeBase::CancelTimer() noexcept {
  if (timer_outstanding_ && TimerService::TryCancel(timer_)) timer_outstanding_ = false;
}

void BlockingHedgeBase::RunAttempt(int i) noexcept {
  {
    std::lock_guard lock(mu_);
    if (session_.answered()) {  // answered while this hedge waited for a worker: skip it
      session_.OnAttemptSkipped(i, BooksNow());
      cv_.notify_all();
      return;
    }
  }
  const Status& status = Invoke(i, attempts_[i].ctx);
  const TimePoint end = clock_.Now();
  const TimePoint coarse = clock_.CoarseNow();
  std::lock_guard lock(mu_);
  HedgeActions a;
  session_.OnAttemptEnd(i, status, end, coarse, a);
  if (a.answered) answered_at_ = end;
  Do(a);
  cv_.notify_all();
}

int BlockingHedgeBase::AwaitEnd() {
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
    HedgeActions a;
    session_.OnCallerCancelled(a);
    Do(a);
    ex_.Wait(lock, cv_, [this] { return Quiet(); });
  }
  run_.attempts = session_.launched();
  run_.winner = session_.winner() + 1;
  run_.cancelled = session_.cancelled();
  run_.stop = session_.stop();
  if (run_.winner > 0 && run_.cancelled > 0) run_.loser_wait = clock_.Now() - answered_at_;
  const int answer = session_.answer();
  answer_gave_up_ = attempts_[answer].ctx.downstream_gave_up;
  return answer;
}

void BlockingHedgeBase::Finish(Status& answer) noexcept {
  session_.Finish(answer, answer_gave_up_, answer.ok() ? TimePoint{} : clock_.Now(), BooksNow());
}

}  // namespace stormguard::hedge_internal
