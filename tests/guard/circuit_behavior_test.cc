#include "stormguard/guard/circuit_behavior.h"

#include <gtest/gtest.h>

namespace stormguard {
namespace {

TEST(CircuitBehaviorTest, TripsWhenTheFailureRateReachesTheThreshold) {
  const CircuitBehavior rule(0.5, 0.5);
  EXPECT_EQ(rule.Evaluate({.calls = 100, .failures = 50, .slow_calls = 0}, 100), TripReason::kFailureRate);
  EXPECT_EQ(rule.Evaluate({.calls = 100, .failures = 49, .slow_calls = 0}, 100), TripReason::kNone);
}

TEST(CircuitBehaviorTest, TripsWhenTheSlowCallRateReachesTheThreshold) {
  const CircuitBehavior rule(0.5, 0.3);
  EXPECT_EQ(rule.Evaluate({.calls = 10, .failures = 0, .slow_calls = 3}, 10), TripReason::kSlowCallRate);
  EXPECT_EQ(rule.Evaluate({.calls = 10, .failures = 0, .slow_calls = 2}, 10), TripReason::kNone);
}

TEST(CircuitBehaviorTest, NeverTripsBelowTheMinimumNumberOfCalls) {
  const CircuitBehavior rule(0.5, 0.5);
  EXPECT_EQ(rule.Evaluate({.calls = 99, .failures = 99, .slow_calls = 99}, 100), TripReason::kNone);
  EXPECT_EQ(rule.Evaluate({.calls = 0, .failures = 0, .slow_calls = 0}, 0), TripReason::kNone);
}

TEST(CircuitBehaviorTest, FailureRateIsReportedFirstWhenBothAreReached) {
  const CircuitBehavior rule(0.5, 0.5);
  EXPECT_EQ(rule.Evaluate({.calls = 4, .failures = 4, .slow_calls = 4}, 1), TripReason::kFailureRate);
}

TEST(CircuitBehaviorTest, AThresholdOfOneNeedsEveryCallToFail) {
  const CircuitBehavior rule(1.0, 1.0);
  EXPECT_EQ(rule.Evaluate({.calls = 10, .failures = 9, .slow_calls = 9}, 10), TripReason::kNone);
  EXPECT_EQ(rule.Evaluate({.calls = 10, .failures = 10, .slow_calls = 0}, 10), TripReason::kFailureRate);
}

// One failure in three is 0.333...; a threshold written as 1.0 / 3 must
// still trip, which a computed rate could miss by a rounding.
TEST(CircuitBehaviorTest, ARateExactlyOnAFractionalThresholdTrips) {
  const CircuitBehavior rule(1.0 / 3, 1.0);
  EXPECT_EQ(rule.Evaluate({.calls = 3, .failures = 1, .slow_calls = 0}, 3), TripReason::kFailureRate);
  EXPECT_EQ(rule.Evaluate({.calls = 300, .failures = 99, .slow_calls = 0}, 3), TripReason::kNone);
}

// 0.07 * 100 is 7.000000000000001 in doubles: a product of fractions would
// not trip at 7 failures in 100 calls.
TEST(CircuitBehaviorTest, ADecimalThresholdTripsExactlyOnItsRate) {
  const CircuitBehavior rule(0.07, 0.07);
  EXPECT_EQ(rule.Evaluate({.calls = 100, .failures = 7, .slow_calls = 0}, 100), TripReason::kFailureRate);
  EXPECT_EQ(rule.Evaluate({.calls = 100, .failures = 0, .slow_calls = 7}, 100), TripReason::kSlowCallRate);
  EXPECT_EQ(rule.Evaluate({.calls = 100, .failures = 6, .slow_calls = 6}, 100), TripReason::kNone);
}

TEST(CircuitBehaviorTest, ThresholdsReadBackAsFractions) {
  const CircuitBehavior rule(0.5, 1.0);
  EXPECT_EQ(rule.failure_rate_threshold(), 0.5);
  EXPECT_EQ(rule.slow_call_rate_threshold(), 1.0);
}

TEST(CircuitBehaviorTest, ReasonNames) {
  EXPECT_EQ(TripReasonName(TripReason::kNone), "none");
  EXPECT_EQ(TripReasonName(TripReason::kFailureRate), "failure_rate");
  EXPECT_EQ(TripReasonName(TripReason::kSlowCallRate), "slow_call_rate");
}

}  // namespace
}  // namespace stormguard
