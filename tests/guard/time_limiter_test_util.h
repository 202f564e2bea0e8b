// Helpers for the TimeLimiter tests: a manual clock (the test thread moves
// time) and a TimerService on it without a thread of its own, so Advance
// fires the callers' deadlines on the test's thread; an executor with those
// timers, a listener that records every event and counts the ends of
// abandoned work, and bounded waits (the hedge tests' Gate and Checkpoint).
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

namespace stormguard::time_limiter_testing {

using hedge_testing::AwaitState;
using hedge_testing::Checkpoint;
using hedge_testing::Gate;

class EventLog final : public Listener {
 public:
  void OnEvent(const Event& e) noexcept override {
    {
      std::lock_guard lock(mu_);
      events_.push_back(e);
    }
    if (e.kind == EventKind::kAttemptEnded) ended.Arrive();
  }
  // "kind:reason" of every event, in order.
  std::vector<std::string> Names() const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const Event& e : events_) out.push_back(std::string(EventKindName(e.kind)) + ":" + std::string(e.reason));
    return out;
  }
  // The last event of `kind` (a default Event when there is none).
  Event Last(EventKind kind) const {
    std::lock_guard lock(mu_);
    for (auto it = events_.rbegin(); it != events_.rend(); ++it) {
      if (it->kind == kind) return *it;
    }
    return Event{.kind = kind};
  }
  int Count(EventKind kind) const {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const Event& e : events_) n += e.kind == kind ? 1 : 0;
    return n;
  }

  Checkpoint ended;  // one arrival per abandoned work that ended

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

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
  EventLog log;
  Gate gate;
  Checkpoint started;
  std::shared_ptr<Executor> executor;
  std::shared_ptr<TimeLimiter> limiter;
};

}  // namespace stormguard::time_limiter_testing
