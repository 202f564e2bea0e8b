#include "stormguard/retry/milli_tokens.h"

#include <gtest/gtest.h>

namespace stormguard {
namespace {

TEST(MilliTokensTest, ToMilliKeepsThreeDecimalsAsWritten) {
  EXPECT_EQ(ToThousandths(10), 10'000);
  EXPECT_EQ(ToThousandths(0.1), 100);
  EXPECT_EQ(ToThousandths(0.57), 570) << "0.57 is 0.5699999... as a double";
  EXPECT_EQ(ToThousandths(0.1009), 100) << "the fourth decimal is cut, not rounded";
  EXPECT_EQ(ToThousandths(0.0009), 0);
}

TEST(MilliTokensTest, StartsFullRefillsUpToMaxAndSpendsDownToZero) {
  MilliTokens t(/*max=*/2'000, /*refill=*/300);
  EXPECT_EQ(t.milli(), 2'000);
  t.Refill();
  EXPECT_EQ(t.milli(), 2'000);
  t.Spend(1'000);
  t.Refill();
  EXPECT_EQ(t.milli(), 1'300);
  t.Spend(5'000);
  EXPECT_EQ(t.milli(), 0);
  EXPECT_DOUBLE_EQ(t.tokens(), 0.0);
}

TEST(MilliTokensTest, TrySpendTakesOnlyWhatIsThere) {
  MilliTokens t(/*max=*/1'500, /*refill=*/0);
  EXPECT_TRUE(t.TrySpend(1'000));
  EXPECT_FALSE(t.TrySpend(1'000));
  EXPECT_EQ(t.milli(), 500) << "a refused spend takes nothing";
}

}  // namespace
}  // namespace stormguard
