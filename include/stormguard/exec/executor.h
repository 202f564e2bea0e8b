// stormguard/exec/executor.h: a small thread pool with timers, for hedged attempts.
//
// The hedged driver runs the primary attempt on the caller's thread and
// needs two things from elsewhere: a timer that fires "launch a hedge now"
// after the delay, and threads to run the hedges. An Executor is both: a
// fixed pool of worker threads fed by a bounded queue, plus one timer thread
// that waits on the injected Clock (so a ManualClock in kBlockOnSleep mode
// drives it step by step in tests; kAdvanceOnSleep would let the timer
// thread jump the clock). Timer tasks run on the timer thread and must be
// short (the driver's only decides and submits).
//
//   auto ex = Executor::Create({.threads = 2}, clock).value();
//   ex->TrySubmit([&counter] { counter.fetch_add(1); });
//   TimerId t = ex->ScheduleAt(clock.Now() + 50ms, [call] { call->OnTimer(); });
//   if (ex->Cancel(t)) { /* it will never run */ }
//
// Tasks are SmallTasks: trivially copyable callables of at most 48 bytes (a
// lambda capturing a few pointers and numbers), stored inline. The queue
// and the timer table are allocated once in Create, so TrySubmit,
// ScheduleAt and Cancel never allocate (bench/hedge_benchmark.cc measures
// it); when full they refuse instead of blocking or growing.
//
// Shutdown (also the destructor) refuses new work, fires every pending
// timer at once, runs every queued task, then joins all threads: a task
// accepted is a task run, so a driver waiting on one is never stranded.
//
// Thread safety: every method may be called from any thread, including from
// inside a task. The destructor must not run on an executor thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/result.h"

namespace stormguard {

// A trivially copyable callable stored inline: no allocation, no destructor.
class SmallTask {
 public:
  static constexpr std::size_t kCapacity = 48;

  SmallTask() noexcept = default;
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, SmallTask>)
  SmallTask(F f) noexcept  // NOLINT: implicit, so a lambda converts
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

// Identifies a scheduled timer; kNoTimer means "none" (or refused).
using TimerId = std::uint64_t;
inline constexpr TimerId kNoTimer = 0;

struct ExecutorOptions {
  int threads = 2;            // worker threads (hedges are rare: a few suffice)
  int queue_capacity = 256;   // tasks waiting for a worker
  int timer_capacity = 4096;  // timers armed at once (one per in-flight hedged call)

  std::vector<std::string> Validate() const;
};

class Executor {
 public:
  static Result<std::unique_ptr<Executor>> Create(ExecutorOptions options, Clock& clock = Clock::Real());
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  Clock& clock() const noexcept { return clock_; }

  // Queues `task` for a worker; false when the queue is full or shut down.
  bool TrySubmit(SmallTask task) noexcept;
  // Runs `task` on the timer thread once clock().Now() >= at; kNoTimer when
  // the timer table is full or the executor is shut down.
  TimerId ScheduleAt(TimePoint at, SmallTask task) noexcept;
  // True: the timer was removed and its task will never run. False: it
  // already ran, is running, or never existed.
  bool Cancel(TimerId id) noexcept;

  void Shutdown();

  // Counters for tests and metrics.
  std::uint64_t submitted() const noexcept { return submitted_.load(std::memory_order_relaxed); }
  std::uint64_t timers_scheduled() const noexcept {
    return timers_scheduled_.load(std::memory_order_relaxed);
  }

 private:
  struct TimerSlot {
    TimePoint at{};
    SmallTask task;
    std::uint32_t generation = 1;
    int heap_pos = -1;  // -1: free
  };

  Executor(ExecutorOptions o, Clock& clock);
  void Start();
  void WorkerLoop();
  void TimerLoop();
  // Timer heap (min-heap of slot indices on `at`), under timer_mu_.
  void HeapPlace(int pos, int slot) noexcept;
  void HeapUp(int pos) noexcept;
  void HeapDown(int pos) noexcept;
  SmallTask TakeTimer(int slot) noexcept;  // removes it from the heap and frees the slot

  ExecutorOptions o_;
  Clock& clock_;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::vector<SmallTask> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  bool stopping_ = false;
  std::atomic<std::uint64_t> submitted_{0};

  std::mutex timer_mu_;
  std::condition_variable timer_cv_;
  std::vector<TimerSlot> slots_;
  std::vector<int> heap_;
  std::vector<int> free_;
  std::stop_source* wake_ = nullptr;  // set while the timer thread waits on the clock
  TimePoint sleep_until_{};           // ... until this time
  bool timer_stopping_ = false;
  std::atomic<std::uint64_t> timers_scheduled_{0};

  std::vector<std::thread> workers_;
  std::thread timer_thread_;
};

}  // namespace stormguard
