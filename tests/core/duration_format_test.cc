#include "stormguard/core/duration_format.h"

#include <gtest/gtest.h>

namespace stormguard {
namespace {

using namespace std::chrono_literals;

TEST(DurationFormatTest, UsesTheLargestUnitReachedWithoutTrailingZeros) {
  EXPECT_EQ(FormatDuration(7ns), "7ns");
  EXPECT_EQ(FormatDuration(250us), "250us");
  EXPECT_EQ(FormatDuration(12500ns), "12.5us");
  EXPECT_EQ(FormatDuration(100ms), "100ms");
  EXPECT_EQ(FormatDuration(3200us), "3.2ms");
  EXPECT_EQ(FormatDuration(1s), "1s");
  EXPECT_EQ(FormatDuration(1500ms), "1.5s");
  EXPECT_EQ(FormatDuration(30s), "30s");
  EXPECT_EQ(FormatDuration(90s), "1.5m");
  EXPECT_EQ(FormatDuration(2h), "2h");
}

TEST(DurationFormatTest, RoundsToThreeDecimals) {
  EXPECT_EQ(FormatDuration(1234567ns), "1.235ms");
  EXPECT_EQ(FormatDuration(999999999ns), "1000ms");  // rounding never changes the unit
}

TEST(DurationFormatTest, ZeroNegativeAndInfinite) {
  EXPECT_EQ(FormatDuration(Duration::zero()), "0s");  // reads as a duration in help and Describe()
  EXPECT_EQ(FormatDuration(-2s), "-2s");
  EXPECT_EQ(FormatDuration(-1500us), "-1.5ms");
  EXPECT_EQ(FormatDuration(kInfiniteDuration), "inf");
  EXPECT_EQ(FormatDuration(Duration::min()), "-2562047.788h");  // its magnitude overflows a Duration
}

}  // namespace
}  // namespace stormguard
