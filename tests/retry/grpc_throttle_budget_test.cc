#include "stormguard/retry/grpc_throttle_budget.h"

#include <atomic>

#include "retry/budget_test_util.h"

namespace stormguard {
namespace {
using namespace budget_test;

TEST(GrpcThrottleBudgetTest, ValidateNamesEveryBadFieldWithGrpcRanges) {
  EXPECT_THAT((GrpcThrottleBudgetOptions{.max_tokens = 0, .token_ratio = 0}.Validate()),
              UnorderedElementsAre("max_tokens: must be in (0, 1000]", "token_ratio: must be in (0, 1000]"));
  EXPECT_THAT((GrpcThrottleBudgetOptions{.max_tokens = 1000.5}.Validate()),
              UnorderedElementsAre("max_tokens: must be in (0, 1000]"));
  EXPECT_THAT((GrpcThrottleBudgetOptions{.max_tokens = 0.0004, .token_ratio = 0.0009}.Validate()),
              UnorderedElementsAre("max_tokens: must be at least 0.001 (tokens keep three decimals)",
                                   "token_ratio: must be at least 0.001 (gRPC keeps three decimals)"));
  EXPECT_TRUE((GrpcThrottleBudgetOptions{.max_tokens = 1000, .token_ratio = 0.001}.Validate().empty()));
  ExpectInvalidArgument(GrpcThrottleBudget::Create({.max_tokens = -1}));
}

TEST(GrpcThrottleBudgetTest, KeepsThreeDecimalsAndCutsTheRestLikeGrpcsParser) {
  auto cut = Unwrap(GrpcThrottleBudget::Create({.max_tokens = 10, .token_ratio = 0.1009}));
  EXPECT_EQ(cut->milli_token_ratio(), 100);
  EXPECT_EQ(cut->max_milli_tokens(), 10'000);
  // 0.57 is 0.569999... as a double; the decimal the user wrote wins.
  EXPECT_EQ(Unwrap(GrpcThrottleBudget::Create({.token_ratio = 0.57}))->milli_token_ratio(), 570);
}

TEST(GrpcThrottleBudgetTest, StartsFullAndRetriesThemselvesCostNothing) {
  auto budget = Unwrap(GrpcThrottleBudget::Create());
  EXPECT_EQ(budget->name(), "grpc_throttle");
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(budget->TryAcquireRetry(kNow));
  EXPECT_DOUBLE_EQ(budget->tokens(), 10.0);
}

TEST(GrpcThrottleBudgetTest, ThrottlesOnceTokensAreNoLongerAboveHalf) {
  auto budget = Unwrap(GrpcThrottleBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  for (int i = 0; i < 4; ++i) budget->RecordFailure(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 6.0);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow));
  budget->RecordFailure(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 5.0);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow)) << "5.0 is not > 5";
  budget->RecordSuccess(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 5.1);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << "5.1 is";
}

TEST(GrpcThrottleBudgetTest, HalfOfMaxIsIntegerMilliTokenDivision) {
  // max 0.003 tokens = 3 milli-tokens; the threshold is 3 / 2 = 1, not 1.5.
  auto budget = Unwrap(GrpcThrottleBudget::Create({.max_tokens = 0.003, .token_ratio = 0.001}));
  EXPECT_TRUE(budget->TryAcquireRetry(kNow));
  budget->RecordFailure(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 0.0);
  budget->RecordSuccess(kNow);
  EXPECT_FALSE(budget->TryAcquireRetry(kNow)) << "1 milli-token is not > 1";
  budget->RecordSuccess(kNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kNow)) << "2 milli-tokens are > 1 (but not > 1.5)";
}

TEST(GrpcThrottleBudgetTest, TokensStayWithinZeroAndMax) {
  auto budget = Unwrap(GrpcThrottleBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  for (int i = 0; i < 20; ++i) budget->RecordFailure(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 0.0);
  for (int i = 0; i < 200; ++i) budget->RecordSuccess(kNow);
  EXPECT_DOUBLE_EQ(budget->tokens(), 10.0);
}

TEST(GrpcThrottleBudgetTest, ConcurrentFailuresAndSuccessesAreNeverLost) {
  auto budget = Unwrap(GrpcThrottleBudget::Create({.max_tokens = 1000, .token_ratio = 0.1}));
  RunConcurrently(4, [&](int) {
    for (int i = 0; i < 200; ++i) budget->RecordFailure(kNow);
  });
  EXPECT_DOUBLE_EQ(budget->tokens(), 200.0);  // 1000 - 4 x 200, no bound reached
  RunConcurrently(4, [&](int) {
    for (int i = 0; i < 1000; ++i) budget->RecordSuccess(kNow);
  });
  EXPECT_DOUBLE_EQ(budget->tokens(), 600.0);  // + 4 x 1000 x 0.1
}

TEST(GrpcThrottleBudgetTest, ConcurrentMixKeepsTokensInBounds) {
  auto budget = Unwrap(GrpcThrottleBudget::Create({.max_tokens = 10, .token_ratio = 0.5}));
  std::atomic<bool> in_bounds{true};
  RunConcurrently(4, [&](int t) {
    for (int i = 0; i < 20'000; ++i) {
      if ((i + t) % 3 == 0) budget->RecordFailure(kNow);
      else budget->RecordSuccess(kNow);
      budget->TryAcquireRetry(kNow);
      const double tokens = budget->tokens();
      if (tokens < 0 || tokens > 10) in_bounds = false;
    }
  });
  EXPECT_TRUE(in_bounds.load());
}

}  // namespace
}  // namespace stormguard
