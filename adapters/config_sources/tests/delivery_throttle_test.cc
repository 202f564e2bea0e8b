#include "delivery_throttle.h"

#include <gtest/gtest.h>

namespace stormguard::config_sources {
namespace {

using std::chrono::milliseconds;

const TimePoint kStart{std::chrono::hours(1)};

TEST(DeliveryThrottleTest, TheFirstChangeGoesOutAtOnce) {
  DeliveryThrottle t(milliseconds(50));
  EXPECT_FALSE(t.Due(kStart));  // nothing pending
  t.Changed();
  EXPECT_EQ(t.Wait(kStart, milliseconds(1000)), Duration::zero());
  EXPECT_TRUE(t.Due(kStart));
  EXPECT_FALSE(t.pending());
  EXPECT_EQ(t.Wait(kStart, milliseconds(1000)), milliseconds(1000));  // idle
}

TEST(DeliveryThrottleTest, ChangesWithinTheIntervalWaitForItsEndAndGoOutTogether) {
  DeliveryThrottle t(milliseconds(50));
  t.Changed();
  ASSERT_TRUE(t.Due(kStart));
  t.Changed();
  t.Changed();
  EXPECT_FALSE(t.Due(kStart + milliseconds(10)));
  EXPECT_EQ(t.Wait(kStart + milliseconds(10), milliseconds(1000)), milliseconds(40));
  EXPECT_FALSE(t.Due(kStart + milliseconds(49)));
  EXPECT_TRUE(t.Due(kStart + milliseconds(50)));
  EXPECT_FALSE(t.Due(kStart + milliseconds(200)));  // both went out in one
}

TEST(DeliveryThrottleTest, ABurstCostsAboutOneDeliveryPerInterval) {
  DeliveryThrottle t(milliseconds(50));
  int deliveries = 0;
  TimePoint now = kStart;
  for (int i = 0; i < 500; ++i, now += milliseconds(1)) {  // a write every millisecond for 500 ms
    t.Changed();
    deliveries += t.Due(now);
  }
  deliveries += t.Due(now + milliseconds(50));
  EXPECT_LE(deliveries, 1 + 500 / 50 + 1);
  EXPECT_FALSE(t.pending());
}

TEST(DeliveryThrottleTest, FlushTakesAPendingChangeWhateverTheTime) {
  DeliveryThrottle t(milliseconds(50));
  EXPECT_FALSE(t.Flush());
  t.Changed();
  ASSERT_TRUE(t.Due(kStart));
  t.Changed();
  EXPECT_TRUE(t.Flush());
  EXPECT_FALSE(t.pending());
  t.Changed();  // the interval still counts from the last Due
  EXPECT_FALSE(t.Due(kStart + milliseconds(1)));
}

TEST(DeliveryThrottleTest, ZeroIntervalDeliversEveryChange) {
  DeliveryThrottle t(Duration::zero());
  for (int i = 0; i < 3; ++i) {
    t.Changed();
    EXPECT_TRUE(t.Due(kStart));
  }
}

}  // namespace
}  // namespace stormguard::config_sources
