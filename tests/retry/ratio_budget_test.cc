#include "stormguard/retry/ratio_budget.h"

#include <atomic>

#include "core/range_test_util.h"
#include "retry/budget_test_util.h"

namespace stormguard {
namespace {
using namespace budget_test;

int DrainRetries(RetryBudget& budget, TimePoint now) {
  int granted = 0;
  while (budget.TryAcquireRetry(now)) ++granted;
  return granted;
}

TEST(RatioBudgetTest, ValidateNamesEveryBadField) {
  EXPECT_THAT(
      (RatioBudgetOptions{.ttl = 500ms, .min_retries_per_second = -1, .retry_ratio = 1001, .buckets = 0, .stripes = 65}
           .Validate()),
      UnorderedElementsAre("ttl: must be in [1s, 60s]", "min_retries_per_second: must be in [0, 1000000], got -1",
                           "retry_ratio: must be in [0, 1000], got 1001", "buckets: must be in [1, 512]",
                           "stripes: must be in [0, 64]"));
  ExpectInvalidArgument(RatioBudget::Create({.ttl = 61s}));
  EXPECT_TRUE(RatioBudgetOptions{}.Validate().empty());
}

// retries per request may exceed 1 (a fraction with its own bound); the
// reserve rate is per second.
TEST(RatioBudgetTest, RatioAndReserveRefuseNanInfinityAndOutOfRange) {
  testkit::ExpectRangeChecked(RatioBudgetOptions{}, &RatioBudgetOptions::retry_ratio, "retry_ratio", Range{0, 1000});
  testkit::ExpectRangeChecked(RatioBudgetOptions{}, &RatioBudgetOptions::min_retries_per_second,
                              "min_retries_per_second", Range{0, 1e6});
}

TEST(RatioBudgetTest, HundredRequestsAllowExactlyTwentyRetriesAtTwentyPercent) {
  auto budget = Unwrap(RatioBudget::Create({.min_retries_per_second = 0, .retry_ratio = 0.2}));
  EXPECT_EQ(budget->name(), "ratio");
  for (int i = 0; i < 100; ++i) budget->OnRequestStart(kNow);
  EXPECT_DOUBLE_EQ(budget->balance(kNow), 20.0);
  EXPECT_EQ(DrainRetries(*budget, kNow), 20);
  EXPECT_EQ(budget->counts(kNow), (RollingCounts{100, 20})) << "refused retries are not counted";
  EXPECT_DOUBLE_EQ(budget->balance(kNow), 0.0);
}

TEST(RatioBudgetTest, EveryFifthRequestEarnsOneMoreRetry) {
  auto budget = Unwrap(RatioBudget::Create({.min_retries_per_second = 0, .retry_ratio = 0.2}));
  for (int i = 0; i < 4; ++i) budget->OnRequestStart(kNow);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow)) << "0.8 of a retry is not a retry";
  budget->OnRequestStart(kNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow));
}

TEST(RatioBudgetTest, DepositsOlderThanTtlNoLongerCount) {
  auto budget = Unwrap(RatioBudget::Create({.ttl = 10s, .min_retries_per_second = 0, .retry_ratio = 0.2}));
  for (int i = 0; i < 100; ++i) budget->OnRequestStart(kNow);
  EXPECT_DOUBLE_EQ(budget->balance(kNow + 10s - 1ns), 20.0);
  EXPECT_DOUBLE_EQ(budget->balance(kNow + 10s), 0.0);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow + 10s));
}

TEST(RatioBudgetTest, MinimumAllowsRetriesWithoutTrafficAndComesBackAfterTtl) {
  auto budget = Unwrap(RatioBudget::Create({.ttl = 10s, .min_retries_per_second = 1, .retry_ratio = 0.2}));
  EXPECT_EQ(DrainRetries(*budget, kNow), 10) << "1/s over a 10 s ttl";
  EXPECT_FALSE(budget->TryAcquireRetry(kNow + 9s)) << "withdrawals are still in the window";
  EXPECT_EQ(DrainRetries(*budget, kNow + 10s), 10) << "expired withdrawals give the reserve back";
}

TEST(RatioBudgetTest, ReserveAndDepositsAddUp) {
  auto budget = Unwrap(RatioBudget::Create({.ttl = 10s, .min_retries_per_second = 1, .retry_ratio = 0.2}));
  for (int i = 0; i < 50; ++i) budget->OnRequestStart(kNow);
  EXPECT_EQ(DrainRetries(*budget, kNow + 1s), 10 + 10);
}

TEST(RatioBudgetTest, ZeroPercentLeavesOnlyTheReserve) {
  auto budget = Unwrap(RatioBudget::Create({.min_retries_per_second = 0.5, .retry_ratio = 0}));
  for (int i = 0; i < 1000; ++i) budget->OnRequestStart(kNow);
  EXPECT_EQ(DrainRetries(*budget, kNow), 5);
}

TEST(RatioBudgetTest, OutcomesDoNotMoveTheBalance) {
  auto budget = Unwrap(RatioBudget::Create({.min_retries_per_second = 0}));
  for (int i = 0; i < 10; ++i) budget->OnRequestStart(kNow);
  budget->RecordFailure(kNow);
  budget->RecordSuccess(kNow);
  budget->OnRequestEnd(kNow);
  EXPECT_DOUBLE_EQ(budget->balance(kNow), 2.0);
}

TEST(RatioBudgetTest, ConcurrentRetriesNeverOverdrawAndNoDepositIsLost) {
  auto budget = Unwrap(RatioBudget::Create({.min_retries_per_second = 1, .retry_ratio = 0.2, .stripes = 2}));
  constexpr int kThreads = 4;
  std::atomic<int> granted{0};
  RunConcurrently(kThreads, [&](int) {
    for (int i = 0; i < 1000; ++i) {
      budget->OnRequestStart(kNow);
      if (budget->TryAcquireRetry(kNow)) ++granted;
    }
  });
  const int allowed = kThreads * 1000 / 5 + 10;  // 20% of 4000 requests + 10 reserve
  EXPECT_LE(granted.load(), allowed);
  EXPECT_EQ(budget->counts(kNow)[0], kThreads * 1000);
  // A refusal under contention may leave a retry unclaimed; none is lost.
  EXPECT_EQ(granted.load() + DrainRetries(*budget, kNow), allowed);
}

}  // namespace
}  // namespace stormguard
