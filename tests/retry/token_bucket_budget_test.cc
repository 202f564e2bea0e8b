#include "stormguard/retry/token_bucket_budget.h"

#include <atomic>
#include <optional>

#include "retry/budget_test_util.h"
#include "stormguard/core/clock.h"

namespace stormguard {
namespace {
using namespace budget_test;

TEST(TokenBucketBudgetTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((TokenBucketBudgetOptions{.max_tokens = 0.5, .token_ratio = -1}.Validate()),
              UnorderedElementsAre("max_tokens: must be in [1, 1e9]", "token_ratio: must be in [0, 1e9]"));
  EXPECT_THAT((TokenBucketBudgetOptions{.token_ratio = 0.0004}.Validate()),
              UnorderedElementsAre("token_ratio: must be 0 or at least 0.001 (tokens keep three decimals)"));
  ExpectInvalidArgument(TokenBucketBudget::Create({.max_tokens = 2e9}));
  EXPECT_TRUE(TokenBucketBudgetOptions{.token_ratio = 0}.Validate().empty());
}

TEST(TokenBucketBudgetTest, StartsFullAndEachRetryTakesOneToken) {
  auto budget = Unwrap(TokenBucketBudget::Create());
  EXPECT_EQ(budget->name(), "token_bucket");
  EXPECT_DOUBLE_EQ(budget->tokens(), 10.0);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << i;
  EXPECT_FALSE(budget->TryAcquireRetry(kNow));
  EXPECT_DOUBLE_EQ(budget->tokens(), 0.0);
}

TEST(TokenBucketBudgetTest, SuccessAddsRatioUpToMax) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  ASSERT_TRUE(budget->TryAcquireRetry(kNow));
  budget->RecordSuccess(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 9.1);
  for (int i = 0; i < 20; ++i) budget->RecordSuccess(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 10.0);
}

TEST(TokenBucketBudgetTest, FailuresCostNothing) {
  auto budget = Unwrap(TokenBucketBudget::Create());
  for (int i = 0; i < 100; ++i) budget->RecordFailure(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 10.0);
}

TEST(TokenBucketBudgetTest, RetryAllowedWhileAtLeastOneTokenIsLeft) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(budget->TryAcquireRetry(kNow));
  for (int i = 0; i < 9; ++i) budget->RecordSuccess(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 0.9);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow)) << "0.9 tokens are not a retry";
  budget->RecordSuccess(kNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << "exactly 1.0 is";
}

// The deadline demo: three calls, two retries, 8.0 tokens left.
TEST(TokenBucketBudgetTest, SeedDeadlineDemoTwoRetriesLeaveEightTokens) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  budget->OnRequestStart(kNow);
  budget->RecordFailure(kNow);
  ASSERT_TRUE(budget->TryAcquireRetry(kNow));
  budget->RecordFailure(kNow);
  ASSERT_TRUE(budget->TryAcquireRetry(kNow));
  budget->RecordFailure(kNow);  // the deadline leaves no room for a third retry
  budget->OnRequestEnd(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 8.0);
}

// 50% failures at 1000 rps, every failure asks for a retry.
// Per second +50 tokens from successes, -500 from retries: 10 tokens last
// about 20 ms. After that the retry rate is pinned to what successes earn.
TEST(TokenBucketBudgetTest, SeedQ5HalfFailuresAt1000RpsExhaustTokensInAbout20ms) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  ManualClock clock;
  const TimePoint start = clock.Now();
  std::optional<Duration> exhausted;
  int late_retries = 0;  // granted in the second second
  for (int ms = 0; ms < 2000; ++ms) {
    const TimePoint now = clock.Now();
    budget->OnRequestStart(now);
    if (ms % 2 == 0) {
      budget->RecordSuccess(now);
    } else {
      budget->RecordFailure(now);
      const bool granted = budget->TryAcquireRetry(now);
      if (!granted && !exhausted) exhausted = now - start;
      if (granted && ms >= 1000) ++late_retries;
    }
    budget->OnRequestEnd(now);
    clock.Advance(1ms);
  }
  ASSERT_TRUE(exhausted.has_value());
  EXPECT_GE(*exhausted, 18ms);
  EXPECT_LE(*exhausted, 25ms);
  EXPECT_EQ(*exhausted, 23ms) << "11 retries granted, the 12th refused";
  // 500 successes/s earn 50 tokens/s: 50 retries of the 500 asked for.
  EXPECT_NEAR(late_retries, 50, 1);
}

TEST(TokenBucketBudgetTest, ConcurrentRetriesSpendEachTokenExactlyOnce) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 1000, .token_ratio = 0}));
  std::atomic<int> granted{0};
  RunConcurrently(4, [&](int) {
    for (int i = 0; i < 1000; ++i) granted += budget->TryAcquireRetry(kNow) ? 1 : 0;
  });
  EXPECT_EQ(granted.load(), 1000);
  EXPECT_DOUBLE_EQ(budget->tokens(), 0.0);
}

TEST(TokenBucketBudgetTest, ConcurrentMixNeverGrantsMoreThanEarnedNorLeavesBounds) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.5}));
  constexpr int kThreads = 4;
  constexpr int kRounds = 20'000;
  std::atomic<std::int64_t> granted{0};
  std::atomic<bool> in_bounds{true};
  RunConcurrently(kThreads, [&](int t) {
    for (int i = 0; i < kRounds; ++i) {
      if ((i + t) % 2 == 0) budget->RecordSuccess(kNow);
      else budget->RecordFailure(kNow);
      if (budget->TryAcquireRetry(kNow)) ++granted;
      const double tokens = budget->tokens();
      if (tokens < 0 || tokens > 10) in_bounds = false;
    }
  });
  EXPECT_TRUE(in_bounds.load());
  const std::int64_t successes = kThreads * kRounds / 2;
  // Milli-tokens spent can never exceed the start plus everything earned.
  EXPECT_LE(granted.load() * 1000, 10'000 + successes * 500);
  EXPECT_GE(granted.load(), 1);
}

}  // namespace
}  // namespace stormguard
