// Many threads on one breaker: counts stay exact, half-open never hands out
// more trials than allowed, and state changes reach the listener in order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "guard/circuit_breaker_test_util.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/random.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::MakeBreaker;
using ::stormguard::testkit::RecordingListener;

constexpr int kThreads = 4;

template <class Body>
void RunThreads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& th : threads) th.join();
}

// Every tenth call fails, every seventh is slow; thresholds of 1 (every call) keep
// the circuit closed, so every call must be counted.
void CallConcurrently(CircuitBreaker& cb, TimePoint now, int calls_per_thread) {
  RunThreads([&](int) {
    for (int i = 0; i < calls_per_thread; ++i) {
      ASSERT_TRUE(cb.TryAcquirePermission(now));
      cb.OnResult(i % 10 == 0 ? OutcomeClass::kTransient : OutcomeClass::kSuccess, i % 7 == 0 ? 3s : 1ms, now);
    }
  });
}

TEST(CircuitBreakerConcurrencyTest, TimeWindowCountsEveryConcurrentCall) {
  ManualClock clock;
  auto cb = MakeBreaker({.failure_rate_threshold = 1.0,
                         .slow_call_rate_threshold = 1.0,
                         .window_kind = WindowKind::kTimeBased,
                         .window_size = 10,
                         .minimum_number_of_calls = 1'000'000});
  CallConcurrently(*cb, clock.Now(), 5000);
  const WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.calls, kThreads * 5000);
  EXPECT_EQ(m.failures, kThreads * 500);
  EXPECT_EQ(m.slow_calls, kThreads * 715);  // i = 0, 7, ..., 4998
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
}

TEST(CircuitBreakerConcurrencyTest, CountWindowStaysExactAfterConcurrentCalls) {
  ManualClock clock;
  auto cb = MakeBreaker({.failure_rate_threshold = 1.0,
                         .slow_call_rate_threshold = 1.0,
                         .window_size = 1000,
                         .minimum_number_of_calls = 1000});
  CallConcurrently(*cb, clock.Now(), 5000);
  WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.calls, 1000);
  EXPECT_LT(m.failures, 1000);
  // No drift: the next 1000 calls replace the whole window exactly.
  for (int i = 0; i < 1000; ++i) cb->OnResult(OutcomeClass::kSuccess, 1ms, clock.Now());
  m = cb->metrics(clock.Now());
  EXPECT_EQ(m.failures, 0);
  EXPECT_EQ(m.slow_calls, 0);
  for (int i = 0; i < 1000; ++i) cb->OnResult(OutcomeClass::kTransient, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kOpen);  // a rate of 1 >= 1, exactly on the last call
  EXPECT_EQ(cb->metrics(clock.Now()).failures, 1000);
}

TEST(CircuitBreakerConcurrencyTest, HalfOpenNeverHandsOutMoreThanThePermittedTrials) {
  ManualClock clock;
  auto cb = MakeBreaker({.permitted_calls_in_half_open = 5});
  ASSERT_TRUE(cb->TransitionToOpen(clock.Now()).ok());
  ASSERT_TRUE(cb->TransitionToHalfOpen(clock.Now()).ok());
  std::atomic<int> granted{0};
  const auto hammer = [&](int) {
    for (int i = 0; i < 1000; ++i) granted += cb->TryAcquirePermission(clock.Now()) ? 1 : 0;
  };
  RunThreads(hammer);
  EXPECT_EQ(granted.load(), 5);
  RunThreads([&](int) {
    for (int i = 0; i < 100; ++i) cb->ReleasePermission();
  });
  granted = 0;
  RunThreads(hammer);
  EXPECT_EQ(granted.load(), 5);
}

// Threads call, fail half the time, give permits back, tick and advance a
// shared clock. Whatever the interleaving, each reported transition must
// start where the previous one ended, and the last one must be the state.
TEST(CircuitBreakerConcurrencyTest, StateChangesReachTheListenerAsAChain) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 10,
                         .minimum_number_of_calls = 5,
                         .wait_in_open = 1ms,
                         .permitted_calls_in_half_open = 2,
                         .max_wait_in_half_open = 2ms,
                         .listener = &events});
  RunThreads([&](int t) {
    Random rng(static_cast<std::uint64_t>(t) + 1);
    for (int i = 0; i < 3000; ++i) {
      const TimePoint now = clock.Now();
      if (cb->TryAcquirePermission(now)) {
        if (rng.Below(10) == 0) {
          cb->ReleasePermission();
        } else {
          const bool fail = rng.Below(2) == 0;
          cb->OnResult(fail ? OutcomeClass::kOverloaded : OutcomeClass::kSuccess, 1ms, clock.Now());
        }
      }
      if (i % 50 == 0) cb->Tick(clock.Now());
      clock.Advance(20us);
    }
  });
  const std::vector<std::string> chain = events.Transitions();
  ASSERT_GT(chain.size(), 10u);
  std::string at = "closed";
  for (const std::string& step : chain) {
    const auto arrow = step.find("->");
    ASSERT_NE(arrow, std::string::npos) << step;
    EXPECT_EQ(step.substr(0, arrow), at) << step;
    at = step.substr(arrow + 2);
  }
  EXPECT_EQ(at, CircuitStateName(cb->state()));
}

}  // namespace
}  // namespace stormguard
