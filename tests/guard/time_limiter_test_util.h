// Helpers for the TimeLimiter tests: a manual clock (the test thread moves
// time) and a TimerService on it without a thread of its own, so Advance
// fires the callers' deadlines on the test's thread; an executor with those
// timers, the shared recording listener, and bounded waits (the hedge
// tests' Gate and Checkpoint).
// Env opens its gate before its members go, so the executor never joins a
// task still blocked on it.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hedge/hedge_test_util.h"
#include "stormguard/guard/time_limiter.h"
#include "testkit/recording_listener.h"

namespace stormguard::time_limiter_testing {

using hedge_testing::AwaitState;
using hedge_testing::Checkpoint;
using hedge_testing::Gate;

struct Env {
  explicit Env(TimeLimiterOptions o = {}, ExecutorOptions eo = {}) {
    eo.timers = timers.get();
    executor = Executor::Create(eo).value();
    o.listener = &log;
    limiter = TimeLimiter::Create(o, *executor).value();
  }
  ~Env() { gate.Open(); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  // Work that ignores its stop token: it ends when the gate opens.
  auto Stuck() {
    return [this](CallContext&) {
      started.Arrive();
      gate.Wait({});
      return Status::Ok();
    };
  }
  // Moves the clock and fires the timers now due (callers' deadlines).
  void Advance(Duration d) {
    clock.Advance(d);
    timers->RunDue();
  }
  // Starts a call whose work ignores its stop, moves the clock by
  // `timeout` and returns the caller's answer; the work stays blocked.
  Status AbandonAStuckCall(Duration timeout) {
    const int arrivals = started.count() + 1;
    auto call = hedge_testing::Async([this] {
      CallContext ctx;
      return limiter->Run(ctx, Stuck());
    });
    started.WaitFor(arrivals);  // its deadline was armed before the work was submitted
    Advance(timeout);
    return hedge_testing::Get(call);
  }
  // Blocks the executor's only worker until the gate opens.
  void OccupyTheWorker() {
    ASSERT_TRUE(executor->TrySubmit([this] {
      started.Arrive();
      gate.Wait({});
    }));
    started.WaitFor(1);
  }

  ManualClock clock{TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep};
  const TimePoint start = clock.Now();
  std::shared_ptr<TimerService> timers = TimerService::Create(clock, {.background_thread = false}).value();
  testkit::RecordingListener log;
  Gate gate;
  Checkpoint started;
  std::shared_ptr<Executor> executor;
  std::shared_ptr<TimeLimiter> limiter;
};

}  // namespace stormguard::time_limiter_testing
