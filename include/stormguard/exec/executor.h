// stormguard/exec/executor.h: where hedged attempts and detached work run.
//
// The hedged driver runs the primary attempt on the caller's thread and
// needs two things from elsewhere: a timer that fires "launch a hedge now"
// after the delay, and threads to run the hedges. An Executor is the
// threads. Executor::Create makes the one the library uses: a fixed pool of
// workers fed by a bounded queue. Its timers come from the TimerService it
// carries (options.timers; TimerService::Default() on the real clock when
// null), which also gives it its clock: a test injects a TimerService
// without a background thread on a ManualClock and fires timers with
// RunDue().
//
//   auto ex = Executor::Create({.threads = 2}).value();
//   ex->TrySubmit([&counter] { counter.fetch_add(1); });
//   TimerHandle t = ex->timers().Schedule(ex->clock().Now() + 50ms, &OnTimer, call);
//
// Tasks are SmallTasks: trivially copyable callables of at most 48 bytes (a
// lambda capturing a few pointers and numbers), stored inline. The pool's
// queue is allocated once in Create, so TrySubmit never allocates
// (bench/hedge_benchmark.cc measures it); when full it refuses instead of
// blocking or growing.
//
// Shutdown (also the pool's destructor) refuses new work, runs every queued
// task, then joins the workers: a task accepted is a task run, so a driver
// waiting on one is never stranded.
//
// Other executors derive from Executor: the scenario tests run a blocking
// hedge's attempts on one whose TrySubmit, Wait and Shutdown take turns on
// the test's virtual clock. Only a hedge or a time limiter calls these
// virtual functions, on paths that already lock and wait; a pipeline
// without them never does.
//
// Thread safety: every method may be called from any thread, including from
// inside a task. The destructor must not run on an executor thread. The
// TimerService must outlive the executor.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/function_ref.h"
#include "stormguard/core/result.h"
#include "stormguard/exec/timer_service.h"

namespace stormguard {

// A trivially copyable callable stored inline: no allocation, no destructor.
class SmallTask {
 public:
  static constexpr std::size_t kCapacity = 48;

  SmallTask() noexcept = default;
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, SmallTask>)
  SmallTask(F f)
  noexcept  // NOLINT: implicit, so a lambda converts
      : call_([](const void* p) { (*static_cast<const F*>(p))(); }) {
    static_assert(std::is_trivially_copyable_v<F> && std::is_trivially_destructible_v<F>,
                  "a SmallTask captures only pointers and plain values");
    static_assert(sizeof(F) <= kCapacity && alignof(F) <= alignof(std::max_align_t),
                  "a SmallTask holds at most 48 bytes of captures");
    ::new (static_cast<void*>(storage_)) F(f);
  }

  explicit operator bool() const noexcept { return call_ != nullptr; }
  void operator()() const { call_(storage_); }

 private:
  alignas(std::max_align_t) unsigned char storage_[kCapacity] = {};
  void (*call_)(const void*) = nullptr;
};

struct ExecutorOptions {
  int threads = 2;                 // worker threads (hedges are rare: a few suffice)
  int queue_capacity = 256;        // tasks waiting for a worker
  TimerService* timers = nullptr;  // null: TimerService::Default()

  std::vector<std::string> Validate() const;
};

class Executor {
 public:
  // The worker pool.
  static Result<std::shared_ptr<Executor>> Create(ExecutorOptions options = {});
  // A small pool, made on first use and never destroyed (timers fire during
  // exit), for what a timer callback must not run on the timer thread and
  // has no executor of its own for: a breaker's listener, for one.
  static Executor& ForTimerCallbacks();
  virtual ~Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Where users of the executor (the hedge driver, the time limiter) arm
  // their timers, and the clock those timers follow.
  TimerService& timers() const noexcept { return timers_; }
  Clock& clock() const noexcept { return timers_.clock(); }

  // Queues `task` to run on another thread; false when the queue is full or
  // shut down.
  virtual bool TrySubmit(SmallTask task) noexcept = 0;

  // Blocks the calling thread until done() holds: a driver waits here for
  // the tasks it submitted. `lock` holds the mutex that guards what done()
  // reads, and whoever changes that notifies `cv` under it. The pool waits
  // on `cv`; a test's executor lets its tasks and its clock move meanwhile.
  virtual void Wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, FunctionRef<bool()> done);

  // Refuses new tasks, runs every accepted one, then returns.
  virtual void Shutdown() = 0;

  // Tasks accepted so far, for tests and metrics.
  std::uint64_t submitted() const noexcept { return submitted_.load(std::memory_order_relaxed); }

 protected:
  explicit Executor(TimerService& timers) noexcept : timers_(timers) {}
  void CountSubmitted() noexcept { submitted_.fetch_add(1, std::memory_order_relaxed); }

 private:
  TimerService& timers_;
  std::atomic<std::uint64_t> submitted_{0};
};

}  // namespace stormguard
