// Helpers for the TimeLimiter tests: a manual clock in kBlockOnSleep mode
// (the test thread moves time, the caller waits on it), an executor on that
// clock, a listener that records every event and counts the ends of
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
    executor = Executor::Create(eo, clock).value();
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
  // Starts a call whose work ignores its stop, moves the clock by
  // `timeout` and returns the caller's answer; the work stays blocked.
  Status AbandonAStuckCall(Duration timeout) {
    const int arrivals = started.count() + 1;
    auto call = hedge_testing::Async([this] {
      CallContext ctx;
      return limiter->Run(ctx, Stuck());
    });
    started.WaitFor(arrivals);
    clock.Advance(timeout);
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
  EventLog log;
  Gate gate;
  Checkpoint started;
  std::unique_ptr<Executor> executor;
  std::unique_ptr<TimeLimiter> limiter;
};

// Spins (yielding) until pred() holds; a broken limiter fails the test
// instead of hanging it. For states no event announces.
template <class Pred>
void AwaitState(Pred pred, const char* what) {
  const auto give_up = std::chrono::steady_clock::now() + hedge_testing::kBound;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > give_up) hedge_testing::Stuck(what);
    std::this_thread::yield();
  }
}

}  // namespace stormguard::time_limiter_testing
