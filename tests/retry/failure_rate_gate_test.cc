#include "stormguard/retry/failure_rate_gate.h"

#include "core/range_test_util.h"
#include "retry/budget_test_util.h"

namespace stormguard {
namespace {
using namespace budget_test;

void Record(RetryBudget& gate, TimePoint at, int successes, int failures) {
  for (int i = 0; i < successes; ++i) gate.RecordSuccess(at);
  for (int i = 0; i < failures; ++i) gate.RecordFailure(at);
}

TEST(FailureRateGateTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((FailureRateGateOptions{
                  .window = 0s, .buckets = 0, .failure_rate_threshold = 1.5, .min_requests = -1, .stripes = 99}
                   .Validate()),
              UnorderedElementsAre("window: must be positive", "buckets: must be in [1, 512]",
                                   "failure_rate_threshold: must be in [0, 1], got 1.5",
                                   "min_requests: must not be negative", "stripes: must be in [0, 64]"));
  ExpectInvalidArgument(FailureRateGate::Create({.failure_rate_threshold = -0.1}));
  EXPECT_TRUE(FailureRateGateOptions{}.Validate().empty());
}

TEST(FailureRateGateTest, ThresholdIsAFractionRefusingNanAndInfinity) {
  testkit::ExpectRangeChecked(FailureRateGateOptions{}, &FailureRateGateOptions::failure_rate_threshold,
                              "failure_rate_threshold", kFraction);
}

TEST(FailureRateGateTest, ClosesAboveTenPercentButNotAtExactlyTenPercent) {
  auto gate = Unwrap(FailureRateGate::Create({.min_requests = 0}));
  EXPECT_EQ(gate->name(), "failure_rate_gate");
  Record(*gate, kNow, 90, 10);
  EXPECT_DOUBLE_EQ(gate->FailureRate(kNow), 0.1);
  EXPECT_TRUE(gate->TryAcquireRetry(kNow)) << "10 of 100 is not above 10%";
  Record(*gate, kNow, 0, 1);
  EXPECT_FALSE(gate->TryAcquireRetry(kNow)) << "11 of 101 is";
}

TEST(FailureRateGateTest, MinRequestsKeepsOneEarlyFailureFromClosingIt) {
  auto gate = Unwrap(FailureRateGate::Create());  // min_requests = 10
  Record(*gate, kNow, 0, 1);
  EXPECT_TRUE(gate->TryAcquireRetry(kNow));
  Record(*gate, kNow, 0, 9);
  EXPECT_FALSE(gate->TryAcquireRetry(kNow)) << "10 outcomes, all failures";

  auto literal = Unwrap(FailureRateGate::Create({.min_requests = 0}));  // the plain rule
  Record(*literal, kNow, 0, 1);
  EXPECT_FALSE(literal->TryAcquireRetry(kNow));
}

TEST(FailureRateGateTest, ReopensWhenTheFailingSecondLeavesTheWindow) {
  auto gate = Unwrap(FailureRateGate::Create({.window = 10s, .buckets = 10}));
  Record(*gate, kNow, 20, 80);  // a bad second
  for (int s = 1; s <= 9; ++s) Record(*gate, kNow + std::chrono::seconds(s), 10, 0);
  EXPECT_FALSE(gate->TryAcquireRetry(kNow + 9s + 999ms)) << "80 of 190 failed";
  EXPECT_TRUE(gate->TryAcquireRetry(kNow + 10s)) << "the bad second slid out";
  EXPECT_EQ(gate->counts(kNow + 10s), (RollingCounts{90, 0}));
}

TEST(FailureRateGateTest, TryAcquireRetryChargesNothing) {
  auto gate = Unwrap(FailureRateGate::Create());
  Record(*gate, kNow, 95, 5);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(gate->TryAcquireRetry(kNow));
  EXPECT_EQ(gate->counts(kNow), (RollingCounts{95, 5}));
}

TEST(FailureRateGateTest, EmptyWindowHasZeroFailureRate) {
  auto gate = Unwrap(FailureRateGate::Create({.min_requests = 0}));
  EXPECT_DOUBLE_EQ(gate->FailureRate(kNow), 0.0);
  EXPECT_TRUE(gate->TryAcquireRetry(kNow));
}

TEST(FailureRateGateTest, ConcurrentOutcomesAreAllCounted) {
  auto gate = Unwrap(FailureRateGate::Create({.min_requests = 0, .stripes = 2}));
  RunConcurrently(4, [&](int) {
    for (int i = 0; i < 10'000; ++i) {
      if (i % 10 == 0) gate->RecordFailure(kNow);
      else gate->RecordSuccess(kNow);
      gate->TryAcquireRetry(kNow);
    }
  });
  EXPECT_EQ(gate->counts(kNow), (RollingCounts{36'000, 4'000}));
  EXPECT_TRUE(gate->TryAcquireRetry(kNow)) << "exactly 10%";
}

}  // namespace
}  // namespace stormguard
