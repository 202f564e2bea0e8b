#include "stormguard/sim/series.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

TEST(SeriesTest, StartSecondsIsTheBucketsStartFromTheRunsStart) {
  const Series s(100ms, 1, 0);
  EXPECT_EQ(s.StartSeconds(0), 0);
  EXPECT_DOUBLE_EQ(s.StartSeconds(3), 0.3);
  EXPECT_DOUBLE_EQ(Series(2s, 1, 0).StartSeconds(5), 10);
}

}  // namespace
}  // namespace stormguard::sim
