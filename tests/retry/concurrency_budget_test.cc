#include "stormguard/retry/concurrency_budget.h"

#include <algorithm>
#include <atomic>

#include "core/range_test_util.h"
#include "retry/budget_test_util.h"

namespace stormguard {
namespace {
using namespace budget_test;

TEST(ConcurrencyBudgetTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((ConcurrencyBudgetOptions{.retry_fraction = 20, .min_retry_concurrency = -1, .stripes = -1}.Validate()),
              UnorderedElementsAre("retry_fraction: must be in [0, 1], got 20",
                                   "min_retry_concurrency: must not be negative", "stripes: must be in [0, 64]"));
  ExpectInvalidArgument(ConcurrencyBudget::Create({.retry_fraction = -5}));
  EXPECT_TRUE(ConcurrencyBudgetOptions{}.Validate().empty());
}

TEST(ConcurrencyBudgetTest, RetryFractionIsAFractionOfActiveRequests) {
  testkit::ExpectRangeChecked(ConcurrencyBudgetOptions{}, &ConcurrencyBudgetOptions::retry_fraction, "retry_fraction",
                              kFraction);
  EXPECT_EQ(ConcurrencyBudgetOptions{}.retry_fraction, 0.2);  // Envoy's budget_percent 20
}

TEST(ConcurrencyBudgetTest, LimitIsAFractionOfActiveRoundedDownButNeverBelowMinimum) {
  auto budget = Unwrap(ConcurrencyBudget::Create({.retry_fraction = 0.2, .min_retry_concurrency = 3}));
  EXPECT_EQ(budget->name(), "concurrency");
  EXPECT_EQ(budget->RetryLimit(0), 3);
  EXPECT_EQ(budget->RetryLimit(19), 3);
  EXPECT_EQ(budget->RetryLimit(24), 4);
  EXPECT_EQ(budget->RetryLimit(100), 20);
}

TEST(ConcurrencyBudgetTest, MinimumAppliesWhenFewRequestsAreActive) {
  auto budget = Unwrap(ConcurrencyBudget::Create({.retry_fraction = 0.2, .min_retry_concurrency = 3}));
  budget->OnRequestStart(kNow);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << i;
  EXPECT_FALSE(budget->TryAcquireRetry(kNow));
  EXPECT_EQ(budget->outstanding_retries(), 3) << "a refused retry holds no slot";
  budget->OnRetryEnd(kNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << "a finished retry frees its slot";
}

TEST(ConcurrencyBudgetTest, PercentOfActiveRequestsBoundsRetriesInFlight) {
  auto budget = Unwrap(ConcurrencyBudget::Create({.retry_fraction = 0.2, .min_retry_concurrency = 3}));
  for (int i = 0; i < 100; ++i) budget->OnRequestStart(kNow);
  EXPECT_EQ(budget->active_requests(), 100);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << i;
  EXPECT_FALSE(budget->TryAcquireRetry(kNow));
  // Half the requests finish: the limit drops to 10 and holds new retries
  // back until the outstanding ones fall below it.
  for (int i = 0; i < 50; ++i) budget->OnRequestEnd(kNow);
  for (int i = 0; i < 10; ++i) budget->OnRetryEnd(kNow);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow)) << "10 outstanding, limit 10";
  budget->OnRetryEnd(kNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow));
}

TEST(ConcurrencyBudgetTest, OutcomesDoNotMatter) {
  auto budget = Unwrap(ConcurrencyBudget::Create({.retry_fraction = 0, .min_retry_concurrency = 1}));
  for (int i = 0; i < 10; ++i) budget->RecordFailure(kNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow));
  budget->RecordSuccess(kNow);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow));
}

TEST(ConcurrencyBudgetTest, ConcurrentCallersNeverExceedTheLimit) {
  auto budget = Unwrap(ConcurrencyBudget::Create({.retry_fraction = 0, .min_retry_concurrency = 2, .stripes = 4}));
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  std::atomic<int> granted{0};
  RunConcurrently(4, [&](int) {
    for (int i = 0; i < 20'000; ++i) {
      budget->OnRequestStart(kNow);
      if (budget->TryAcquireRetry(kNow)) {
        ++granted;
        const int now_in_flight = ++in_flight;  // counted after the grant...
        int seen = most.load();
        while (now_in_flight > seen && !most.compare_exchange_weak(seen, now_in_flight)) {
        }
        --in_flight;  // ...and uncounted before the release
        budget->OnRetryEnd(kNow);
      }
      budget->OnRequestEnd(kNow);
    }
  });
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(granted.load(), 1);
  EXPECT_EQ(budget->active_requests(), 0);
  EXPECT_EQ(budget->outstanding_retries(), 0);
}

}  // namespace
}  // namespace stormguard
