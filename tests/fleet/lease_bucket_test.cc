#include "stormguard/fleet/lease_bucket.h"

#include <gtest/gtest.h>

namespace stormguard {
namespace {

using namespace std::chrono_literals;

int TakeAll(LeaseBucket& bucket, TimePoint now) {
  int n = 0;
  while (n < 1'000'000 && bucket.TryAcquire(now)) ++n;
  return n;
}

TEST(LeaseBucketTest, SpendsTheRateItIsGivenAndStartsFull) {
  LeaseBucket bucket(1, 10);
  const TimePoint t0 = TimePoint(1h);
  bucket.SetRate(100, 10, t0);
  EXPECT_EQ(TakeAll(bucket, t0), 10);
  EXPECT_EQ(TakeAll(bucket, t0 + 100ms), 10);  // 100/s refill 10 in 100 ms
}

TEST(LeaseBucketTest, ARateChangeKeepsWhatTheBucketOwes) {
  LeaseBucket bucket(1, 10);
  const TimePoint t0 = TimePoint(1h);
  bucket.SetRate(100, 10, t0);
  EXPECT_EQ(TakeAll(bucket, t0), 10);  // empty: owes 10 tokens
  bucket.SetRate(1000, 10, t0);        // still empty, refilling ten times faster
  EXPECT_EQ(TakeAll(bucket, t0), 0);
  EXPECT_EQ(TakeAll(bucket, t0 + 5ms), 5);
}

TEST(LeaseBucketTest, RateZeroAdmitsNothingUntilRaised) {
  LeaseBucket bucket(1, 10);
  const TimePoint t0 = TimePoint(1h);
  bucket.SetRate(0, 10, t0);
  EXPECT_EQ(TakeAll(bucket, t0 + 24h), 0);
  bucket.SetRate(100, 10, t0 + 24h);
  EXPECT_EQ(TakeAll(bucket, t0 + 24h), 9);  // a closed bucket reopens owing one token
}

TEST(LeaseBucketTest, ExtremeRatesAndBurstsStayInRange) {
  LeaseBucket bucket(4, 2'000'000'000);
  const TimePoint t0 = TimePoint(1h);
  // Intervals and slack are cut at about three years: two tokens per stripe.
  bucket.SetRate(1e-300, 2'000'000'000, t0);
  EXPECT_LE(TakeAll(bucket, t0), 8);
  bucket.SetRate(1e300, 2'000'000'000, t0);
  EXPECT_GT(TakeAll(bucket, t0 + 1s), 0);
  EXPECT_EQ(bucket.stripes(), 4);
}

}  // namespace
}  // namespace stormguard
