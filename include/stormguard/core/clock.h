// stormguard/core/clock.h: the only way stormguard reads or waits for time.
//
// Policies ask `clock.Now()`; drivers wait with `clock.SleepUntil(t, stop)`.
// Production code uses `Clock::Real()`; tests and the simulator use a
// ManualClock, so nothing ever depends on the wall clock.
//
//   stormguard::ManualClock clock;
//   clock.Advance(std::chrono::seconds(1));
//   bool slept = clock.SleepUntil(clock.Now() + 5ms, stop);  // returns at once
//
// Thread safety: every method of every Clock may be called from any thread.
// Cancellation: SleepUntil returns false as soon as `stop` is requested.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "stormguard/core/time.h"

namespace stormguard {

class Clock {
 public:
  virtual ~Clock() = default;

  virtual TimePoint Now() const noexcept = 0;

  // Now(), possibly up to a few milliseconds late, for a fraction of the
  // cost: for statistics windows (budgets, breakers), never for deadlines.
  // The real clock reads CLOCK_MONOTONIC_COARSE; a ManualClock is exact.
  virtual TimePoint CoarseNow() const noexcept { return Now(); }

  // Blocks until Now() >= t or `stop` is requested. Returns true when the
  // time was reached, false when the wait ended early because of `stop`.
  virtual bool SleepUntil(TimePoint t, std::stop_token stop) = 0;

  bool SleepFor(Duration d, std::stop_token stop) { return SleepUntil(SaturatingAdd(Now(), d), std::move(stop)); }

  // The process-wide monotonic clock (std::chrono::steady_clock).
  static Clock& Real() noexcept;
};

// A monotonic clock that moves only when told to.
//
// SleepUntil has two modes. kAdvanceOnSleep (the default) jumps the clock
// forward to the requested time and returns at once: a single-threaded test
// runs a whole retry loop in virtual time. kBlockOnSleep waits until another
// thread calls Advance/SetNow past the requested time (or `stop` fires), for
// tests that drive a concurrent component step by step.
class ManualClock final : public Clock {
 public:
  enum class SleepMode { kAdvanceOnSleep, kBlockOnSleep };

  explicit ManualClock(TimePoint start = TimePoint(std::chrono::hours(1)),
                       SleepMode mode = SleepMode::kAdvanceOnSleep) noexcept
      : now_(start.time_since_epoch().count()), mode_(mode) {}

  TimePoint Now() const noexcept override { return TimePoint(Duration(now_.load(std::memory_order_acquire))); }

  bool SleepUntil(TimePoint t, std::stop_token stop) override;

  void Advance(Duration d);
  void SetNow(TimePoint t);  // never moves backwards

  // Total time spent in SleepUntil in kAdvanceOnSleep mode and the number of
  // sleeps: lets tests assert what a driver waited for.
  Duration total_slept() const noexcept { return Duration(slept_.load()); }
  int sleep_count() const noexcept { return sleeps_.load(); }

 private:
  std::atomic<Duration::rep> now_;
  std::atomic<Duration::rep> slept_{0};
  std::atomic<int> sleeps_{0};
  SleepMode mode_;
  std::mutex mu_;
  std::condition_variable_any moved_;
};

}  // namespace stormguard
