#include "stormguard/core/striped_counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "core/thread_test_util.h"

namespace stormguard {
namespace {

TEST(StripedCounterTest, ResolveStripesRoundsUpToPowerOfTwoWithinLimits) {
  EXPECT_EQ(ResolveStripes(1), 1);
  EXPECT_EQ(ResolveStripes(3), 4);
  EXPECT_EQ(ResolveStripes(64), 64);
  EXPECT_EQ(ResolveStripes(1000), kMaxStripes);
  const int automatic = ResolveStripes(0);
  EXPECT_GE(automatic, 1);
  EXPECT_LE(automatic, kAutoStripeLimit);
  EXPECT_EQ(automatic & (automatic - 1), 0) << "not a power of two: " << automatic;
}

TEST(StripedCounterTest, CapacityStripesKeepEnoughUnitsPerStripe) {
  EXPECT_EQ(ResolveCapacityStripes(8, 1000, 8), 8);  // explicit: as asked while each gets a unit
  EXPECT_EQ(ResolveCapacityStripes(8, 5, 8), 4);     // explicit: halved until every stripe has one
  EXPECT_EQ(ResolveCapacityStripes(4, 1, 8), 1);
  EXPECT_EQ(ResolveCapacityStripes(0, 7, 8), 1);  // auto: too small to split
  const int automatic = ResolveStripes(0);
  EXPECT_EQ(ResolveCapacityStripes(0, 1'000'000, 8), automatic);
  EXPECT_EQ(ResolveCapacityStripes(0, 16, 8), std::min(automatic, 2));
}

TEST(StripedCounterTest, ThreadsGetConsecutiveStripeNumbers) {
  std::size_t a = 0;
  std::size_t b = 0;
  std::thread ta([&] { a = ThreadStripe(); });
  ta.join();
  std::thread tb([&] { b = ThreadStripe(); });
  tb.join();
  EXPECT_EQ(b, a + 1);
}

TEST(StripedCounterTest, ThreadKeepsItsStripeUntilItMoves) {
  const std::size_t before = ThreadStripe();
  EXPECT_EQ(ThreadStripe(), before);
  MoveThreadStripe();
  EXPECT_NE(ThreadStripe(), before);
}

TEST(StripedCounterTest, AddOnOneThreadAndSubtractOnAnotherNetsOut) {
  StripedCounter c(4);
  std::thread([&] { c.Add(5); }).join();
  std::thread([&] { c.Add(-3); }).join();
  EXPECT_EQ(c.Sum(), 2);
  EXPECT_EQ(c.stripes(), 4);
}

TEST(StripedCounterTest, ConcurrentAddsAreNeverLost) {
  StripedCounter c(2);  // fewer stripes than threads: stripes are shared
  constexpr int kThreads = 4;
  constexpr int kAdds = 50'000;
  testkit::RunConcurrently(kThreads, [&](int) {
    for (int i = 0; i < kAdds; ++i) c.Add(i % 3 == 2 ? -1 : 1);
  });
  std::int64_t per_thread = 0;
  for (int i = 0; i < kAdds; ++i) per_thread += i % 3 == 2 ? -1 : 1;
  EXPECT_EQ(c.Sum(), kThreads * per_thread);
}

}  // namespace
}  // namespace stormguard
