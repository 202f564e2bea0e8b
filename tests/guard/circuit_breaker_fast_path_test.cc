// The inline path of OnResult: a quick success into a closed circuit whose
// count window is full of clean successes returns without recording. Every
// other result must still reach the window; each test below breaks if the
// inline path stops checking one of its conditions.
#include <gtest/gtest.h>

#include "guard/circuit_breaker_test_util.h"
#include "stormguard/core/clock.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::MakeBreaker;
using ::stormguard::testkit::RecordingListener;

using testkit::kOk;
constexpr int kWindow = 4;

// A closed breaker whose count window holds kWindow quick successes.
std::shared_ptr<CircuitBreaker> FullCleanBreaker(TimePoint now, Listener* listener = nullptr) {
  auto cb = MakeBreaker({.slow_call_duration = 1s,
                         .window_size = kWindow,
                         .minimum_number_of_calls = kWindow,
                         .permitted_calls_in_half_open = 2,
                         .listener = listener});
  for (int i = 0; i < kWindow; ++i) cb->OnResult(kOk, 1ms, now);
  return cb;
}

TEST(CircuitBreakerFastPathTest, AQuickSuccessLeavesAFullCleanWindowAsItWas) {
  ManualClock clock;
  auto cb = FullCleanBreaker(clock.Now());
  cb->OnResult(kOk, 1s, clock.Now());  // exactly slow_call_duration is not slow
  const WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.calls, kWindow);
  EXPECT_EQ(m.slow_calls, 0);
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
}

// The latency check: a slow success is recorded and moves the slow-call rate.
TEST(CircuitBreakerFastPathTest, ASlowSuccessIsStillRecorded) {
  ManualClock clock;
  auto cb = FullCleanBreaker(clock.Now());
  cb->OnResult(kOk, 1001ms, clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).slow_calls, 1);
}

// The outcome check: a failure is recorded.
TEST(CircuitBreakerFastPathTest, AFailureIsStillRecorded) {
  ManualClock clock;
  auto cb = FullCleanBreaker(clock.Now());
  cb->OnResult(OutcomeClass::kTransient, 1ms, clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).failures, 1);
}

// The state check: half-open judges its trials in a window of their own,
// even while the main window is still full and clean from before.
TEST(CircuitBreakerFastPathTest, HalfOpenTrialsStillCloseTheCircuit) {
  ManualClock clock;
  auto cb = FullCleanBreaker(clock.Now());
  ASSERT_TRUE(cb->TransitionToOpen(clock.Now()).ok());
  ASSERT_TRUE(cb->TransitionToHalfOpen(clock.Now()).ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
    cb->OnResult(kOk, 1ms, clock.Now());
  }
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
}

// The state check again: metrics_only reports every recorded call.
TEST(CircuitBreakerFastPathTest, MetricsOnlyReportsEveryCallOfAFullCleanWindow) {
  ManualClock clock;
  RecordingListener events;
  auto cb = FullCleanBreaker(clock.Now(), &events);
  ASSERT_TRUE(cb->TransitionToMetricsOnly(clock.Now()).ok());
  for (int i = 0; i < kWindow + 1; ++i) cb->OnResult(kOk, 1ms, clock.Now());
  EXPECT_EQ(events.Count(EventKind::kAttemptEnded), kWindow + 1);
}

// The window check: a time window counts every call.
TEST(CircuitBreakerFastPathTest, ATimeWindowCountsEverySuccess) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_kind = WindowKind::kTimeBased, .window_size = 10, .minimum_number_of_calls = 1});
  for (int i = 0; i < 3; ++i) cb->OnResult(kOk, 1ms, clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 3);
}

}  // namespace
}  // namespace stormguard
