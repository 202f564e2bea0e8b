// The breaker against Resilience4j, its model: the slow-call rule, the
// allowed and refused transitions, and the deliberate differences named in
// circuit_breaker.h's banner.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <utility>

#include "guard/circuit_breaker_test_util.h"
#include "stormguard/core/clock.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::MakeBreaker;
using ::stormguard::testkit::RecordingListener;
using S = CircuitState;

constexpr std::array<S, 6> kStates = {S::kClosed,     S::kOpen,     S::kHalfOpen,
                                      S::kForcedOpen, S::kDisabled, S::kMetricsOnly};

Status TransitionTo(CircuitBreaker& cb, S to, TimePoint now) {
  switch (to) {
    case S::kClosed: return cb.TransitionToClosed(now);
    case S::kOpen: return cb.TransitionToOpen(now);
    case S::kHalfOpen: return cb.TransitionToHalfOpen(now);
    case S::kForcedOpen: return cb.TransitionToForcedOpen(now);
    case S::kDisabled: return cb.TransitionToDisabled(now);
    case S::kMetricsOnly: return cb.TransitionToMetricsOnly(now);
  }
  return Status::Internal("unknown state");
}

// From a fresh (closed) breaker to `s` by allowed steps.
void Enter(CircuitBreaker& cb, S s, TimePoint now) {
  if (s == S::kHalfOpen) {
    ASSERT_TRUE(cb.TransitionToOpen(now).ok());
  }
  if (s != S::kClosed) {
    ASSERT_TRUE(TransitionTo(cb, s, now).ok());
  }
  ASSERT_EQ(cb.state(), s);
}

// Resilience4j's table: every pair but these three (and a state to itself,
// which changes nothing).
TEST(CircuitBreakerR4jTest, EveryTransitionIsAllowedButThreeAndEachRefusalChangesNothing) {
  const std::set<std::pair<S, S>> refused = {
      {S::kClosed, S::kHalfOpen}, {S::kMetricsOnly, S::kOpen}, {S::kMetricsOnly, S::kHalfOpen}};
  for (S from : kStates) {
    for (S to : kStates) {
      const std::string name(CircuitTransitionName(from, to));
      SCOPED_TRACE(name);
      ManualClock clock;
      RecordingListener events;
      auto cb = MakeBreaker({.listener = &events});
      Enter(*cb, from, clock.Now());
      const std::size_t before = events.Transitions().size();
      const Status s = TransitionTo(*cb, to, clock.Now());
      const bool refuse = refused.contains({from, to});
      EXPECT_EQ(CircuitTransitionAllowed(from, to), !refuse);
      if (refuse) {
        EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
        EXPECT_THAT(s.message(), ::testing::HasSubstr(name + " is not an allowed transition"));
        EXPECT_EQ(cb->state(), from);
        EXPECT_EQ(events.Transitions().size(), before);
      } else {
        EXPECT_TRUE(s.ok()) << s.ToString();
        EXPECT_EQ(cb->state(), to);
        const std::size_t expected = from == to ? before : before + 1;
        ASSERT_EQ(events.Transitions().size(), expected);
        if (from != to) {
          EXPECT_EQ(events.Transitions().back(), name);
        }
      }
    }
  }
}

TEST(CircuitBreakerR4jTest, ResetClosesEvenWhereTransitionToClosedIsTheOnlyWayBack) {
  for (S from : kStates) {
    ManualClock clock;
    auto cb = MakeBreaker({});
    Enter(*cb, from, clock.Now());
    cb->Reset(clock.Now());
    EXPECT_EQ(cb->state(), S::kClosed) << CircuitStateName(from);
  }
}

// Slow means longer than slow_call_duration: a call of exactly 2 s is not.
TEST(CircuitBreakerR4jTest, ACallExactlyAtTheSlowDurationIsNotSlow) {
  ManualClock clock;
  auto cb = MakeBreaker({.failure_rate_threshold = 1.0,
                         .slow_call_rate_threshold = 1.0,
                         .slow_call_duration = 2s,
                         .window_size = 2,
                         .minimum_number_of_calls = 2});
  cb->OnResult(OutcomeClass::kSuccess, 2s, clock.Now());
  cb->OnResult(OutcomeClass::kSuccess, 2s, clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).slow_calls, 0);
  EXPECT_EQ(cb->state(), S::kClosed);
  cb->OnResult(OutcomeClass::kSuccess, 2s + 1ns, clock.Now());
  cb->OnResult(OutcomeClass::kSuccess, 2s + 1ns, clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).slow_calls, 2);
  EXPECT_EQ(cb->state(), S::kOpen);  // slow-call rate 1 >= 1
}

TEST(CircuitBreakerR4jTest, AFailedCallCountsAsSlowToo) {
  ManualClock clock;
  auto cb = MakeBreaker({.slow_call_duration = 1s, .window_size = 4, .minimum_number_of_calls = 4});
  cb->OnResult(OutcomeClass::kTransient, 3s, clock.Now());
  const WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.failures, 1);
  EXPECT_EQ(m.slow_calls, 1);
}

// Difference: the wait in open ends at its end, not a nanosecond after, so
// a timer set for NextTick() finds the transition due.
TEST(CircuitBreakerR4jTest, TheWaitInOpenEndsExactlyAtNextTick) {
  ManualClock clock;
  auto timers = TimerService::Create(clock, {.background_thread = false}).value();
  auto cb =
      MakeBreaker({.wait_in_open = 30s, .automatic_transition_from_open_to_half_open = true, .timers = timers.get()});
  ASSERT_TRUE(cb->TransitionToOpen(clock.Now()).ok());
  const TimePoint due = cb->NextTick();
  EXPECT_EQ(due, clock.Now() + 30s);
  cb->Tick(due - 1ns);
  EXPECT_EQ(cb->state(), S::kOpen);
  cb->Tick(due);
  EXPECT_EQ(cb->state(), S::kHalfOpen);
}

// Difference: open -> open does not start a new wait (Resilience4j's does,
// silently).
TEST(CircuitBreakerR4jTest, TransitionToOpenWhileOpenKeepsTheWait) {
  ManualClock clock;
  auto cb = MakeBreaker({.wait_in_open = 30s});
  ASSERT_TRUE(cb->TransitionToOpen(clock.Now()).ok());
  clock.Advance(20s);
  ASSERT_TRUE(cb->TransitionToOpen(clock.Now()).ok());
  clock.Advance(10s);
  EXPECT_TRUE(cb->TryAcquirePermission(clock.Now()));
  EXPECT_EQ(cb->state(), S::kHalfOpen);
}

}  // namespace
}  // namespace stormguard
