// stormguard/exec/stop_poller.h: requests stop once a condition holds, by
// asking it on a timer.
//
// For a cancellation that sends no notice and only answers when asked (a
// sync gRPC handler's ServerContext::IsCancelled): the poller asks every
// `interval` on the timer thread (or in RunDue) and requests stop on
// `target` the first time the condition holds, then asks no more.
//
//   StopPoller watch(timers, 5ms, [&] { return context.IsCancelled(); }, stop);
//   ... work that watches stop.get_token() ...
//   bool cancelled = watch.Stop();
//
// Lifetime: the poller keeps its own copy of `condition` (a lambda written in
// the call is fine); `target` must outlive the poller. After Stop() (or
// destruction) nothing calls either any more, even from a firing that was in
// progress. The condition must be short and must not throw.
// Thread safety: Stop may race with a firing; use one poller from one thread.
#pragma once

#include <functional>
#include <mutex>
#include <stop_token>

#include "stormguard/exec/timer_service.h"

namespace stormguard {

class StopPoller {
 public:
  StopPoller(TimerService& timers, Duration interval, std::function<bool()> condition, std::stop_source& target);
  ~StopPoller() { Stop(); }
  StopPoller(const StopPoller&) = delete;
  StopPoller& operator=(const StopPoller&) = delete;

  // Ends the polling (idempotent). Returns true when the condition held and
  // stop was requested.
  bool Stop() noexcept;

 private:
  static void Fire(void* self) noexcept;
  void Arm() noexcept;

  TimerService& timers_;
  const Duration interval_;
  const std::function<bool()> condition_;
  std::stop_source& target_;
  std::mutex mu_;
  TimerHandle handle_;  // guarded by mu_
  bool done_ = false;   // guarded by mu_: no more asking
  bool fired_ = false;  // guarded by mu_
};

}  // namespace stormguard
