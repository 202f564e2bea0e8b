// stormguard/pipeline/async_timers.h: how an asynchronous driver waits.
//
// A pipeline's asynchronous form never blocks a thread: a stage that must
// wait (a retry backoff, a queued bulkhead slot, a timeout) asks the
// driver's AsyncTimers for a one-shot timer and continues in its callback.
// Each driver supplies its own: the completion driver uses the pipeline's
// TimerService (TimerServiceTimers below); an event-loop driver would use
// its loop's timers. The interface is the TimerService contract:
//
//   AsyncTimerHandle h = timers.Schedule(t, &OnTime, state);
//   ...
//   if (timers.Cancel(h)) { /* OnTime never ran and never will */ }
//
// Contract for implementations: Schedule never blocks, never runs the
// callback before it returns (the asynchronous timeout relies on it), and
// may be called from a callback; Cancel returns true when the callback never ran and
// never will, false when it ran (waiting for it to return if it is running
// on another thread); Cancel is never called from inside the same timer's
// callback. Callbacks may continue a call inline (start its next attempt),
// so a timer thread runs attempts' start-up code: attempts must not block.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "stormguard/core/clock.h"
#include "stormguard/exec/timer_service.h"

namespace stormguard {

// An armed timer; its content belongs to the AsyncTimers that made it.
struct AsyncTimerHandle {
  alignas(8) unsigned char bytes[16] = {};
  bool armed = false;
};

class AsyncTimers {
 public:
  using Callback = void (*)(void* arg) noexcept;
  virtual ~AsyncTimers() = default;

  // The clock the deadlines are on.
  virtual Clock& clock() const noexcept = 0;
  // Calls callback(arg) once `t` has passed, unless cancelled first.
  virtual AsyncTimerHandle Schedule(TimePoint t, Callback callback, void* arg) noexcept = 0;
  // See the contract above; resets `h`. An unarmed handle cancels trivially.
  virtual bool Cancel(AsyncTimerHandle& h) noexcept = 0;
};

// The completion driver's timers: a TimerService (which must outlive it).
class TimerServiceTimers final : public AsyncTimers {
 public:
  explicit TimerServiceTimers(TimerService& service) noexcept : service_(service) {}
  Clock& clock() const noexcept override { return service_.clock(); }
  AsyncTimerHandle Schedule(TimePoint t, Callback callback, void* arg) noexcept override;
  bool Cancel(AsyncTimerHandle& h) noexcept override;

 private:
  TimerService& service_;
};

}  // namespace stormguard
