#include "stormguard/core/validation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace stormguard {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(RangeTest, ClosedFractionTakesItsBoundsAndNegativeZero) {
  EXPECT_TRUE(kFraction.Contains(0.0));
  EXPECT_TRUE(kFraction.Contains(-0.0));
  EXPECT_TRUE(kFraction.Contains(1.0));
  EXPECT_FALSE(kFraction.Contains(1.0000001));
  EXPECT_FALSE(kFraction.Contains(-1e-9));
}

TEST(RangeTest, NeverContainsNanOrInfinity) {
  const Range everything{-kInf, kInf};
  EXPECT_FALSE(everything.Contains(std::nan("")));
  EXPECT_FALSE(everything.Contains(kInf));
  EXPECT_FALSE(everything.Contains(-kInf));
  EXPECT_TRUE(everything.Contains(1e300));
}

TEST(RangeTest, OpenEndsExcludeTheirBound) {
  EXPECT_FALSE(kPositiveFraction.Contains(0.0));
  EXPECT_FALSE(kPositiveFraction.Contains(-0.0));
  EXPECT_TRUE(kPositiveFraction.Contains(1e-12));
  const Range half_open{0.5, 1.0, false, true};
  EXPECT_TRUE(half_open.Contains(0.5));
  EXPECT_FALSE(half_open.Contains(1.0));
}

TEST(RangeTest, PrintsItsBrackets) {
  EXPECT_EQ(kFraction.ToString(), "[0, 1]");
  EXPECT_EQ(kPositiveFraction.ToString(), "(0, 1]");
  EXPECT_EQ((Range{0.5, 1.0, false, true}.ToString()), "[0.5, 1)");
  EXPECT_EQ((Range{0, 1000}.ToString()), "[0, 1000]");
  EXPECT_EQ((Range{0, 1e6}.ToString()), "[0, 1000000]");
  EXPECT_EQ((Range{-0.0, 2.5e-7}.ToString()), "[-0, 2.5e-07]");
}

TEST(ValidatorTest, CheckRangeNamesFieldRangeAndTheRefusedValue) {
  Validator v;
  v.CheckRange(0.5, "ok", kFraction);
  v.CheckRange(1.0000001, "share", kFraction);
  v.CheckRange(std::nan(""), "rate", kPositiveFraction);
  v.CheckRange(-kInf, "ratio", Range{0, 1000});
  ASSERT_EQ(v.errors().size(), 3u);
  EXPECT_EQ(v.errors()[0], "share: must be in [0, 1], got 1.0000001");
  EXPECT_EQ(v.errors()[1], "rate: must be in (0, 1], got nan");
  EXPECT_EQ(v.errors()[2], "ratio: must be in [0, 1000], got -inf");
}

}  // namespace
}  // namespace stormguard
