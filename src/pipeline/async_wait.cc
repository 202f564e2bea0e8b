#include "stormguard/pipeline/async_wait.h"

#include <mutex>

namespace stormguard {

void AsyncWait::Start(AsyncTimers& timers, TimePoint until, std::stop_token stop, OnEnd on_end, void* arg) {
  End early = End::kClaimed;
  bool ended = false;
  {
    std::lock_guard lock(mu_);
    if (claimed_early_ || stop.stop_requested() || until <= timers.clock().Now()) {
      early = claimed_early_ ? End::kClaimed : stop.stop_requested() ? End::kStop : End::kTime;
      state_ = State::kEnded;
      ended = true;
    } else {
      timers_ = &timers;
      on_end_ = on_end;
      arg_ = arg;
      state_ = State::kArming;
      stopped_while_arming_ = false;
      // The token may fire during registration, on this thread (inside
      // emplace) or on another (which then waits for the lock).
      arming_thread_.store(std::this_thread::get_id(), std::memory_order_relaxed);
      on_stop_.emplace(std::move(stop), Forward{this});
      arming_thread_.store(std::thread::id(), std::memory_order_relaxed);
      if (stopped_while_arming_) {
        early = End::kStop;
        state_ = State::kEnded;
        ended = true;
      } else {
        timer_ = timers.Schedule(until, &AsyncWait::OnTime, this);
        state_ = State::kArmed;
      }
    }
  }
  if (!ended) return;
  on_stop_.reset();
  on_end(arg, early);
}

bool AsyncWait::Claim() noexcept {
  std::lock_guard lock(mu_);
  if (state_ == State::kIdle) claimed_early_ = true;
  if (state_ != State::kArmed) return false;
  state_ = State::kEnded;
  return true;
}

void AsyncWait::Disarm() noexcept {
  timers_->Cancel(timer_);  // waits out a running OnTime, which finds the wait ended
  on_stop_.reset();         // likewise for a running OnStop
}

void AsyncWait::OnTime(void* self) noexcept {
  auto* w = static_cast<AsyncWait*>(self);
  {
    std::lock_guard lock(w->mu_);
    if (w->state_ != State::kArmed) return;
    w->state_ = State::kEnded;
    w->timer_ = AsyncTimerHandle{};  // fired: nothing to cancel
  }
  w->on_stop_.reset();
  w->on_end_(w->arg_, End::kTime);
}

void AsyncWait::OnStop() noexcept {
  if (arming_thread_.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
    stopped_while_arming_ = true;  // inside Start's emplace, which holds the lock
    return;
  }
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kArmed) return;
    state_ = State::kEnded;
  }
  timers_->Cancel(timer_);
  on_stop_.reset();  // from inside its own callback: allowed, it does not wait
  on_end_(arg_, End::kStop);
}

}  // namespace stormguard
