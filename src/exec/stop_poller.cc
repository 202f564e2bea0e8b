#include "stormguard/exec/stop_poller.h"

#include <utility>

namespace stormguard {

StopPoller::StopPoller(TimerService& timers, Duration interval, std::function<bool()> condition,
                       std::stop_source& target)
    : timers_(timers), interval_(interval), condition_(std::move(condition)), target_(target) {
  std::lock_guard lock(mu_);
  Arm();
}

bool StopPoller::Stop() noexcept {
  TimerHandle last;
  {
    std::lock_guard lock(mu_);
    done_ = true;  // a firing waiting for the lock asks nothing and re-arms nothing
    last = handle_;
    handle_ = {};
  }
  TimerService::Cancel(last);  // waits out a firing in progress
  std::lock_guard lock(mu_);
  return fired_;
}

void StopPoller::Arm() noexcept { handle_ = timers_.Schedule(timers_.clock().Now() + interval_, &Fire, this); }

void StopPoller::Fire(void* self) noexcept {
  auto& p = *static_cast<StopPoller*>(self);
  std::lock_guard lock(p.mu_);
  if (p.done_) return;
  if (p.condition_()) {
    p.fired_ = true;
    p.done_ = true;
    p.target_.request_stop();
    return;
  }
  p.Arm();
}

}  // namespace stormguard
