#include "stormguard/guard/limit_algorithm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/range_test_util.h"
#include "testkit/time_points.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

using testkit::kT0;

AimdLimit MakeAimd(const AimdLimitOptions& o) {
  auto r = AimdLimit::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

GradientLimit MakeGradient(const GradientLimitOptions& o) {
  auto r = GradientLimit::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

// Feeds `n` successful samples of `rtt` with the limit fully used.
int FeedBusy(LimitAlgorithm& a, int n, Duration rtt) {
  for (int i = 0; i < n; ++i) a.OnSample(kT0, rtt, a.limit(), false);
  return a.limit();
}

TEST(LimitAlgorithmRangeTest, BackoffRatioAndSmoothingAreFractions) {
  testkit::ExpectRangeChecked(AimdLimitOptions{}, &AimdLimitOptions::backoff_ratio, "backoff_ratio",
                              Range{0.5, 1.0, false, true});
  testkit::ExpectRangeChecked(GradientLimitOptions{}, &GradientLimitOptions::smoothing, "smoothing", kPositiveFraction);
}

TEST(AimdLimitTest, ValidateNamesEveryBadField) {
  auto r =
      AimdLimit::Create({.initial_limit = 0, .min_limit = 0, .max_limit = -1, .backoff_ratio = 1.0, .timeout = 0s});
  ASSERT_FALSE(r.ok());
  for (const char* field : {"initial_limit: ", "min_limit: ", "max_limit: ", "backoff_ratio: ", "timeout: "}) {
    EXPECT_THAT(r.status().message(), HasSubstr(field));
  }
}

TEST(AimdLimitTest, GrowsByOneOnlyWhileAtLeastHalfTheLimitIsInFlight) {
  AimdLimit aimd = MakeAimd({.initial_limit = 10, .min_limit = 5, .max_limit = 20});
  EXPECT_EQ(aimd.OnSample(kT0, 10ms, 10, false), 11);
  EXPECT_EQ(aimd.OnSample(kT0, 10ms, 5, false), 11);  // 5 * 2 < 11: app-limited
  EXPECT_EQ(aimd.OnSample(kT0, 10ms, 6, false), 12);
  EXPECT_EQ(FeedBusy(aimd, 100, 10ms), 20);  // never above max_limit
}

TEST(AimdLimitTest, ShrinksByBackoffRatioOnDropOrTimeoutDownToMin) {
  AimdLimit aimd = MakeAimd({.initial_limit = 20, .min_limit = 5, .max_limit = 50});
  EXPECT_EQ(aimd.OnSample(kT0, 10ms, 1, true), 18);  // 20 * 0.9
  EXPECT_EQ(aimd.OnSample(kT0, 6s, 1, false), 16);   // slower than the 5s timeout: a drop
  EXPECT_EQ(aimd.OnSample(kT0, 5s, 16, false), 17);  // exactly the timeout is not
  for (int i = 0; i < 50; ++i) aimd.OnSample(kT0, 10ms, 1, true);
  EXPECT_EQ(aimd.limit(), 5);
}

TEST(GradientLimitTest, ValidateNamesEveryBadField) {
  auto r = GradientLimit::Create(
      {.initial_limit = 300, .smoothing = 0, .queue_size = -1, .rtt_tolerance = 0.5, .long_window = 0});
  ASSERT_FALSE(r.ok());
  for (const char* field : {"initial_limit: ", "smoothing: ", "queue_size: ", "rtt_tolerance: ", "long_window: "}) {
    EXPECT_THAT(r.status().message(), HasSubstr(field));
  }
}

TEST(GradientLimitTest, SteadyLatencyGrowsByQueueSizeTimesSmoothing) {
  // smoothing 1 makes each step exactly limit * gradient + queue_size.
  GradientLimit g = MakeGradient({.initial_limit = 20, .min_limit = 5, .max_limit = 100, .smoothing = 1});
  EXPECT_EQ(g.OnSample(kT0, 10ms, 20, false), 24);
  EXPECT_EQ(g.OnSample(kT0, 10ms, 24, false), 28);
  EXPECT_EQ(g.baseline(), 10ms);
  GradientLimit smooth = MakeGradient({.initial_limit = 20, .min_limit = 5, .max_limit = 100});
  FeedBusy(smooth, 10, 10ms);
  EXPECT_NEAR(smooth.limit(), 28, 1);           // +0.8 per sample with the default smoothing 0.2
  EXPECT_EQ(FeedBusy(smooth, 500, 10ms), 100);  // never above max_limit
}

TEST(GradientLimitTest, AppLimitedSamplesChangeNothing) {
  GradientLimit g = MakeGradient({.initial_limit = 20, .min_limit = 5, .max_limit = 100});
  EXPECT_EQ(g.OnSample(kT0, 10ms, 9, false), 20);  // 9 < 20 / 2
  EXPECT_EQ(g.OnSample(kT0, 900ms, 9, false), 20);
}

TEST(GradientLimitTest, LatencyWithinToleranceDoesNotShrink) {
  GradientLimit g = MakeGradient({.initial_limit = 20, .min_limit = 5, .max_limit = 100, .smoothing = 1});
  FeedBusy(g, 10, 10ms);
  const int before = g.limit();
  EXPECT_EQ(g.OnSample(kT0, 14ms, before, false), before + 4);  // 1.4x < 1.5x tolerance
}

TEST(GradientLimitTest, ShrinksWhenLatencyRisesAboveBaselineAndRecovers) {
  GradientLimit g = MakeGradient({.initial_limit = 50, .min_limit = 5, .max_limit = 200});
  FeedBusy(g, 10, 10ms);
  const int steady = g.limit();
  int prev = steady;
  for (int i = 0; i < 40; ++i) {
    const int next = g.OnSample(kT0, 40ms, prev, false);  // 4x the baseline
    EXPECT_LE(next, prev) << i;
    prev = next;
  }
  const int shrunk = g.limit();
  EXPECT_LT(shrunk, steady / 2);
  EXPECT_GE(shrunk, 8);                           // limit * 0.9 + 0.8 settles at 8
  EXPECT_GT(g.baseline(), 10ms);                  // the baseline drifts up slowly under load
  EXPECT_GT(FeedBusy(g, 50, 10ms), shrunk + 30);  // back to normal latency: grows again
}

TEST(GradientLimitTest, BaselineDecaysFastOnceLatencyDropsBelowHalfOfIt) {
  GradientLimit g = MakeGradient({.initial_limit = 20, .min_limit = 5, .max_limit = 100});
  FeedBusy(g, 10, 10ms);
  FeedBusy(g, 20, 4ms);
  // The exponential average alone would still be above 9.5ms.
  EXPECT_LT(g.baseline(), 8ms);
}

TEST(GradientLimitTest, DropAppliesTheFloorGradientAndStaysOutOfTheBaseline) {
  GradientLimit g = MakeGradient({.initial_limit = 20, .min_limit = 5, .max_limit = 100});
  FeedBusy(g, 10, 10ms);
  const int before = g.limit();
  const int after = g.OnSample(kT0, 5s, 1, true);  // even when app-limited
  EXPECT_EQ(after, static_cast<int>(before * 0.8 + (before * 0.5 + 4) * 0.2));
  EXPECT_EQ(g.baseline(), 10ms);
}

TEST(GradientLimitTest, NeverShrinksBelowMinLimit) {
  GradientLimit g = MakeGradient({.initial_limit = 30, .min_limit = 12, .max_limit = 100});
  FeedBusy(g, 10, 10ms);
  // 30 samples: long before the baseline (600-sample average) adapts to 10s.
  for (int i = 0; i < 30; ++i) g.OnSample(kT0, 10s, 100, false);
  EXPECT_EQ(g.limit(), 12);  // limit * 0.9 + 0.8 alone would settle at 8
  for (int i = 0; i < 200; ++i) g.OnSample(kT0, 1ms, 1, true);
  EXPECT_EQ(g.limit(), 12);
}

}  // namespace
}  // namespace stormguard
