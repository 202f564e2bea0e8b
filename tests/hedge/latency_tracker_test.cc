#include "stormguard/hedge/latency_tracker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "stormguard/core/clock.h"
#include "stormguard/core/random.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;

std::shared_ptr<LatencyTracker> Make(LatencyTrackerOptions o) {
  auto t = LatencyTracker::Create(o);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(t).value();
}

TEST(LatencyTrackerTest, ValidateNamesEveryBadField) {
  const LatencyTrackerOptions bad{.window = Duration::zero(), .slices = 1, .min_samples = 0};
  EXPECT_THAT(bad.Validate(), ElementsAre("slices: must be between 2 and 64", "window: must be positive",
                                          "min_samples: must be at least 1"));
  EXPECT_FALSE(LatencyTracker::Create(bad).ok());
}

TEST(LatencyTrackerTest, BucketsAreExactBelowSixteenNanoseconds) {
  for (int ns = 0; ns < 16; ++ns) {
    EXPECT_EQ(LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(Duration(ns))), Duration(ns));
  }
}

TEST(LatencyTrackerTest, BucketUpperEdgeIsNeverEarlyAndAtMostOneSixteenthLate) {
  Random rng(11);
  for (int i = 0; i < 20000; ++i) {
    const Duration v(rng.UniformInt(16, LatencyTracker::kMaxTracked.count()));
    const Duration edge = LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(v));
    ASSERT_GE(edge, v);
    ASSERT_LT(static_cast<double>(edge.count()), static_cast<double>(v.count()) * (1.0 + 1.0 / 16));
  }
  EXPECT_EQ(LatencyTracker::BucketOf(LatencyTracker::kMaxTracked), LatencyTracker::kBuckets - 1);
  EXPECT_EQ(LatencyTracker::BucketOf(std::chrono::hours(5)), LatencyTracker::kBuckets - 1);  // clamped
  EXPECT_EQ(LatencyTracker::BucketOf(Duration(-5)), 0);
}

TEST(LatencyTrackerTest, PercentileOfUniformLatenciesIsWithinTheStatedError) {
  ManualClock clock;
  auto t = Make({.window = 10s, .slices = 5, .min_samples = 20});
  for (int ms = 1; ms <= 1000; ++ms) t->Record(std::chrono::milliseconds(ms), clock.Now());
  const Duration p95 = t->Quantile(0.95, clock.Now()).value();
  EXPECT_GE(p95, 950ms);
  EXPECT_LT(p95, 950ms * 17 / 16);
  const Duration p50 = t->Quantile(0.5, clock.Now()).value();
  EXPECT_GE(p50, 500ms);
  EXPECT_LT(p50, 500ms * 17 / 16);
  EXPECT_EQ(t->Count(clock.Now()), 1000);
}

TEST(LatencyTrackerTest, NoPercentileUntilTheWindowHoldsMinSamples) {
  ManualClock clock;
  auto t = Make({.min_samples = 3});
  t->Record(10ms, clock.Now());
  t->Record(10ms, clock.Now());
  EXPECT_EQ(t->Quantile(0.95, clock.Now()), std::nullopt);
  t->Record(10ms, clock.Now());
  EXPECT_TRUE(t->Quantile(0.95, clock.Now()).has_value());
  EXPECT_EQ(t->Quantile(0.0, clock.Now()), std::nullopt);  // q outside (0, 1]
}

TEST(LatencyTrackerTest, SamplesLeaveTheWindowSliceBySlice) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto t = Make({.window = 10s, .slices = 5, .min_samples = 1});  // 2 s slices
  t->Record(100ms, clock.Now());
  clock.Advance(2s);
  t->Record(300ms, clock.Now());
  clock.Advance(6s);  // the first slice is still the oldest of five
  EXPECT_EQ(t->Count(clock.Now()), 2);
  clock.Advance(2s);  // now it is six slices old
  EXPECT_EQ(t->Count(clock.Now()), 1);
  EXPECT_EQ(t->Quantile(0.5, clock.Now()), LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(300ms)));
  clock.Advance(2s);
  EXPECT_EQ(t->Count(clock.Now()), 0);
  EXPECT_EQ(t->Quantile(0.5, clock.Now()), std::nullopt);
}

TEST(LatencyTrackerTest, AReusedSliceStartsEmpty) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto t = Make({.window = 4s, .slices = 2, .min_samples = 1});
  for (int i = 0; i < 50; ++i) t->Record(900ms, clock.Now());
  clock.Advance(4s);  // same ring position, two periods later
  t->Record(20ms, clock.Now());
  EXPECT_EQ(t->Count(clock.Now()), 1);
  EXPECT_EQ(t->Quantile(1.0, clock.Now()), LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(20ms)));
}

TEST(LatencyTrackerTest, ASampleOlderThanItsReusedSliceIsDropped) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto t = Make({.window = 4s, .slices = 2, .min_samples = 1});
  const TimePoint old = clock.Now();
  clock.Advance(4s);
  t->Record(20ms, clock.Now());
  t->Record(900ms, old);  // a late writer: its slice already moved on
  EXPECT_EQ(t->Count(clock.Now()), 1);
}

TEST(LatencyTrackerTest, ConcurrentRecordsAreAllCounted) {
  ManualClock clock;
  auto t = Make({.min_samples = 1});
  auto writer = [&](int offset) {
    for (int i = 0; i < 20000; ++i) t->Record(Duration(1000 + (i + offset) % 500), clock.Now());
  };
  std::thread a(writer, 0);
  std::thread b(writer, 7);
  a.join();
  b.join();
  EXPECT_EQ(t->Count(clock.Now()), 40000);
}

}  // namespace
}  // namespace stormguard
