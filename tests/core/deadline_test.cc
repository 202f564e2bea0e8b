#include "stormguard/core/deadline.h"

#include <gtest/gtest.h>

namespace stormguard {
namespace {
using namespace std::chrono_literals;

const TimePoint kNow = TimePoint(1h);

TEST(DeadlineTest, DefaultIsInfiniteAndNeverExpires) {
  Deadline d;
  EXPECT_TRUE(d.is_infinite());
  EXPECT_EQ(d.Remaining(kNow), kInfiniteDuration);
  EXPECT_FALSE(d.Expired(TimePoint::max() - 1ns));
}

TEST(DeadlineTest, RemainingShrinksAndStopsAtZero) {
  Deadline d = Deadline::After(kNow, 250ms);
  EXPECT_EQ(d.Remaining(kNow), 250ms);
  EXPECT_EQ(d.Remaining(kNow + 200ms), 50ms);
  EXPECT_EQ(d.Remaining(kNow + 300ms), 0ns);
  EXPECT_TRUE(d.Expired(kNow + 250ms));
  EXPECT_FALSE(d.Expired(kNow + 249ms));
}

TEST(DeadlineTest, NextHopKeepsFractionAndOverheadForThisHop) {
  Deadline d = Deadline::After(kNow, 1000ms);
  EXPECT_EQ(d.ForNextHop(kNow, {.fraction = 0.1}).Remaining(kNow), 900ms);
  EXPECT_EQ(d.ForNextHop(kNow, {.fraction = 0.1, .overhead = 50ms}).Remaining(kNow), 850ms);
  EXPECT_EQ(d.ForNextHop(kNow, {.overhead = 2s}).Remaining(kNow), 0ms);
}

TEST(DeadlineTest, NextHopIsNeverLaterThanParent) {
  Deadline d = Deadline::After(kNow, 100ms);
  Deadline next = d.ForNextHop(kNow + 40ms, {});
  EXPECT_LE(next.time(), d.time());
  EXPECT_EQ(next.Remaining(kNow + 40ms), 60ms);
  EXPECT_TRUE(Deadline().ForNextHop(kNow, {.fraction = 0.5}).is_infinite());
}

TEST(DeadlineTest, AfterSaturatesInsteadOfOverflowing) {
  Deadline d = Deadline::After(kNow, Duration::max());
  EXPECT_TRUE(d.is_infinite());
  EXPECT_EQ(d.Within(kNow, 5s).Remaining(kNow), 5s);
}

}  // namespace
}  // namespace stormguard
