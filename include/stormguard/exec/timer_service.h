// stormguard/exec/timer_service.h: the library's one timer mechanism.
//
// A TimerService fires a timer once its deadline has passed: it requests
// stop on a std::stop_source (a timeout that really cancels,
// docs/deadlines.md, rule 3) or calls a short callback with an argument.
// The timeout stage, the time limiter, the hedge driver (through its
// Executor) and the HTTP middleware all take their timers from one, so a
// ManualClock drives every one of them in tests. Most timers are disarmed
// before they fire, so arming and disarming must cost next to nothing:
//
//   std::stop_source stop;
//   TimerHandle h = TimerService::Default().Schedule(deadline.time(), stop);
//   Status s = Call(stop.get_token());
//   bool fired = !TimerService::Cancel(h);
//
// Design: each thread arms timers in slots of its own (a block of 16,
// chained when a thread holds more at once; a thread that exits hands its
// block to the next new thread). Arming writes the slot and publishes it
// with one release store: no lock and no atomic read-modify-write, and no
// allocation. Disarming is one compare-and-swap against the timer thread's
// own compare-and-swap from "armed" to "firing"; a timer that fired frees
// its slot itself. One background thread shared by every call scans the
// armed slots when the earliest of them is due, and otherwise sleeps:
// until that deadline, or without end while nothing is armed. Schedule wakes
// it only for a timer due more than a tick before the time it sleeps until,
// so a call that arms a timer later than one already armed, and cancels it
// before it fires, costs the thread nothing (Linux membarrier makes that check
// free for Schedule: the thread going to sleep pays for the memory barrier;
// elsewhere Schedule uses a fence).
//
// Precision: a timer fires at its deadline or up to one tick (default 1 ms)
// plus scheduling delay later, never before; the thread wakes at most once a
// tick however many timers fire. Without a background thread
// (options.background_thread = false), nothing fires until RunDue() is
// called: with a ManualClock, tests move the clock and call RunDue() and
// timers fire exactly at their deadline, on the test's thread.
//
// Thread safety: Schedule, Cancel and TryCancel may be called from any
// thread, and a handle may be cancelled from a thread other than the one
// that armed it; every timer must have fired or been cancelled before the
// service is destroyed. Cancel against a concurrent firing: a callback
// starts only while its timer is armed, and Cancel waits until a callback
// that already started has returned, so after Cancel returns the target
// (the stop_source, the callback's argument) may be destroyed. TryCancel
// never waits: for a callback that synchronizes with its canceller itself
// (the hedge driver's, under the call's lock). Callbacks run on the timer
// thread (or in RunDue); they must be short, must not throw and must not
// cancel their own handle.
//
// What may run on the timer thread: one thread fires every timer of the
// service (with Default(), of the process), so a callback that waits delays
// every other call's timeout, backoff and hedge. A callback does bounded
// library work only: it decides, locks the library's own short critical
// sections, requests stop, arms timers and queues tasks. Anything that may
// run user code goes to a worker, checked with OnBackgroundThread():
//   - a Listener's OnEvent (the hedge's launch, the breaker's automatic
//     open -> half-open): the hedge driver queues its decision on the
//     call's Executor, the breaker on Executor::ForTimerCallbacks();
//   - a hedged attempt's callable: always on the Executor;
//   - a fleet limiter's refresh: on its Executor (GlobalRateLimiter).
// Two exceptions remain, by contract rather than by hand-off: request_stop
// runs the std::stop_callbacks registered on the token (they must be short,
// as std::stop_callback asks of them), and the asynchronous drivers
// (AsyncTimers, pipeline/async_timers.h) continue a call inline in their
// callbacks, so an async attempt's start-up and the events it reports run
// here: async callables must not block. When an executor refuses the task
// (its queue is full) the callback does the work itself rather than lose it.
// A callback that still runs long is counted, and the slowest named by its
// address: slow_callbacks(), against options.slow_callback.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/result.h"

namespace stormguard {

struct TimerServiceOptions {
  Duration tick = std::chrono::milliseconds(1);  // how late a timer may fire, to wake less often
  // Run a background thread that fires timers. Without it, RunDue() fires them.
  bool background_thread = true;
  // A callback that runs longer than this is counted (slow_callbacks()):
  // it holds up every other timer of the service.
  Duration slow_callback = std::chrono::milliseconds(10);

  std::vector<std::string> Validate() const;
};

namespace timer_internal {
struct Slot;
}  // namespace timer_internal

// One armed timer, from Schedule. Cancelling it once (or letting it fire)
// releases it; an empty handle (nothing was armed) cancels trivially.
class TimerHandle {
 public:
  TimerHandle() noexcept = default;
  bool armed() const noexcept { return slot_ != nullptr; }

 private:
  friend class TimerService;
  TimerHandle(timer_internal::Slot* s, std::uint64_t word) noexcept : slot_(s), word_(word) {}
  timer_internal::Slot* slot_ = nullptr;
  std::uint64_t word_ = 0;  // the slot's state word while this timer is armed
};

class TimerService {
 public:
  using Callback = void (*)(void* arg) noexcept;

  // Validates the options; the background thread (if any) starts here.
  static Result<std::shared_ptr<TimerService>> Create(Clock& clock, TimerServiceOptions options = {});

  // The process-wide service on the real clock, with a background thread.
  // Created on first use and never destroyed (calls may run during exit).
  static TimerService& Default();

  ~TimerService();
  TimerService(const TimerService&) = delete;
  TimerService& operator=(const TimerService&) = delete;

  // Calls callback(arg) once `deadline` has passed, unless cancelled first.
  // An infinite deadline arms nothing and returns an empty handle.
  TimerHandle Schedule(TimePoint deadline, Callback callback, void* arg) noexcept;
  // Requests stop on `target` at `deadline`. `target` must outlive the handle.
  TimerHandle Schedule(TimePoint deadline, std::stop_source& target) noexcept;

  // Disarms the timer; resets `h` to empty. Returns true when the callback
  // never ran and never will, false when it ran (if it was running, Cancel
  // waited for it to return).
  static bool Cancel(TimerHandle& h) noexcept;
  // As Cancel, but never waits: false at once when the callback ran or is
  // running, and then `h` stays set, so asking again gives the same answer.
  static bool TryCancel(TimerHandle& h) noexcept;

  // Fires every timer whose deadline is <= clock.Now(); returns how many.
  // Meant for services without a background thread (tests, simulators).
  std::size_t RunDue();

  // Whether this is a service's background thread: a callback that may run
  // user code hands it to a worker there (see "What may run on the timer
  // thread"); in RunDue it runs on the program's own thread, where it may
  // simply do it.
  static bool OnBackgroundThread() noexcept;

  // Callbacks that ran longer than options.slow_callback, and the slowest
  // of them: its address names it (a debugger or addr2line gives the
  // function). Each field is read on its own, so they may disagree briefly.
  struct SlowCallbacks {
    std::uint64_t count = 0;
    Duration longest = Duration::zero();
    Callback longest_callback = nullptr;
  };
  SlowCallbacks slow_callbacks() const noexcept;

  Duration tick() const noexcept { return tick_; }
  Clock& clock() const noexcept { return clock_; }
  // Timers armed and not yet fired or cancelled, over all threads.
  std::size_t armed() const;

  struct Block;  // one thread's slots

 private:
  TimerService(Clock& clock, const TimerServiceOptions& options);
  Block& BlockForThisThread();
  TimerHandle Arm(TimePoint deadline, Callback callback, void* arg) noexcept;
  std::shared_ptr<Block> Register();
  std::size_t Advance(TimePoint now, TimePoint* earliest);
  TimePoint EarliestArmed() const;
  void Run(std::stop_token stop);
  bool SleepUntilDue(TimePoint target, std::stop_token& stop);
  void Wake() noexcept;
  static bool Disarm(TimerHandle& h, bool wait_for_callback) noexcept;
  void NoteCallbackTime(Callback callback, Duration took) noexcept;

  Clock& clock_;
  Duration tick_;
  std::uint64_t id_;  // unique per service, never reused: keys threads' blocks
  bool membarrier_;   // the thread going to sleep issues the barrier (see banner)
  Duration slow_callback_;
  // Written only under advance_mu_, read from any thread.
  std::atomic<std::uint64_t> slow_count_{0};
  std::atomic<std::int64_t> slow_longest_ns_{0};
  std::atomic<Callback> slow_longest_callback_{nullptr};
  mutable std::mutex blocks_mu_;
  std::vector<std::shared_ptr<Block>> blocks_;  // never shrinks: orphans are reused
  std::mutex advance_mu_;
  std::vector<Block*> scan_;  // guarded by advance_mu_
  // What the background thread sleeps until (ns on the clock's axis), or
  // kAwake while it scans: Schedule reads it to decide whether to wake it.
  static constexpr std::int64_t kAwake = std::numeric_limits<std::int64_t>::min();
  std::atomic<std::int64_t> sleeping_until_{kAwake};
  std::mutex wake_mu_;
  std::stop_source wake_{std::nostopstate};  // guarded by wake_mu_: ends the current sleep
  std::jthread thread_;                      // last: starts after everything above exists
};

// Arms a timer for its lifetime: disarms (and waits out a running firing) on
// destruction. fired() after Disarm() tells whether the deadline was hit.
class ScopedTimer {
 public:
  ScopedTimer(TimerService& service, TimePoint deadline, std::stop_source& target) noexcept
      : handle_(service.Schedule(deadline, target)) {}
  ~ScopedTimer() { Disarm(); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

  // Idempotent. Returns true when the timer fired (now or earlier).
  bool Disarm() noexcept {
    if (handle_.armed()) fired_ = !TimerService::Cancel(handle_);
    return fired_;
  }
  bool fired() const noexcept { return fired_; }

 private:
  TimerHandle handle_;
  bool fired_ = false;
};

}  // namespace stormguard
