// Helpers for the hedging tests: a thread-safe budget that counts how the
// driver used it, and bounded synchronization points (every wait gives up
// after kBound, so a broken driver fails a test instead of hanging it). Declare them before the
// Executor whose tasks use them, so the executor joins its threads first.
// Their own namespace: one test binary links every helper header, and two
// inline classes of one name in one namespace are an ODR violation.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "stormguard/core/events.h"
#include "stormguard/hedge/hedge_policy.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard::hedge_testing {

inline constexpr auto kBound = std::chrono::seconds(10);

// A wait that ran out of kBound means a thread is stuck; returning would
// only block again in a destructor (a std::async future, the executor), so
// report and end the process: the test fails fast instead of hanging.
[[noreturn]] inline void Stuck(const char* what, std::chrono::milliseconds bound = kBound) {
  std::fprintf(stderr, "hedge test: %s did not happen within %lldms\n", what, static_cast<long long>(bound.count()));
  std::abort();
}

// Counts arrivals; WaitFor(n) blocks until n have arrived (or Stuck).
class Checkpoint {
 public:
  explicit Checkpoint(std::chrono::milliseconds bound = kBound) : bound_(bound) {}

  // Notifies under the lock: a waiter may destroy the checkpoint as soon as
  // it sees the count.
  void Arrive() {
    std::lock_guard lock(mu_);
    ++count_;
    cv_.notify_all();
  }
  void WaitFor(int n) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, bound_, [&] { return count_ >= n; })) Stuck("a checkpoint arrival", bound_);
  }
  int count() {
    std::lock_guard lock(mu_);
    return count_;
  }

 private:
  const std::chrono::milliseconds bound_;
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

// A gate attempts wait at: Open() releases them; a stop request on the
// attempt's token releases that attempt. Wait() returns true when stopped,
// and ends the process (Stuck) when neither happens within the bound.
class Gate {
 public:
  explicit Gate(std::chrono::milliseconds bound = kBound) : bound_(bound) {}

  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool Wait(std::stop_token stop) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, stop, bound_, [&] { return open_; }) && !stop.stop_requested()) {
      Stuck("a gate opening or a stop request", bound_);
    }
    return stop.stop_requested();
  }

 private:
  const std::chrono::milliseconds bound_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool open_ = false;
};

inline HedgePolicy Make(HedgeOptions o) {
  auto p = HedgePolicy::Create(std::move(o));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

inline HedgeOptions Idempotent(Duration delay, int hedges = 1, Listener* listener = nullptr) {
  return HedgeOptions{.delay = delay, .max_hedged_attempts = hedges, .idempotent = true, .listener = listener};
}

class CountingBudget final : public RetryBudget {
 public:
  explicit CountingBudget(int hedges_allowed) : allowed_(hedges_allowed) {}
  std::string_view name() const noexcept override { return "counting"; }
  void OnRequestStart(TimePoint) noexcept override { ++starts; }
  void OnRequestEnd(TimePoint) noexcept override { ++ends; }
  void RecordSuccess(TimePoint) noexcept override { ++successes; }
  void RecordFailure(TimePoint) noexcept override { ++failures; }
  bool TryAcquireRetry(TimePoint) noexcept override {
    if (allowed_.fetch_sub(1) <= 0) {
      ++refused;
      refusals.Arrive();
      return false;
    }
    ++acquired;
    return true;
  }
  void OnRetryEnd(TimePoint) noexcept override { ++retry_ends; }

  std::atomic<int> starts{0}, ends{0}, successes{0}, failures{0}, acquired{0}, refused{0}, retry_ends{0};
  Checkpoint refusals;

 private:
  std::atomic<int> allowed_;
};

// Runs fn on its own thread (the test thread drives the clock meanwhile).
template <class Fn>
auto Async(Fn fn) {
  return std::async(std::launch::async, std::move(fn));
}

// Spins (yielding) until pred() holds; a broken component fails the test
// instead of hanging it. For states no event announces.
template <class Pred>
void AwaitState(Pred pred, const char* what) {
  const auto give_up = std::chrono::steady_clock::now() + kBound;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > give_up) Stuck(what);
    std::this_thread::yield();
  }
}

template <class T>
T Get(std::future<T>& f) {
  if (f.wait_for(kBound) != std::future_status::ready) Stuck("the call's return");
  return f.get();
}

}  // namespace stormguard::hedge_testing
