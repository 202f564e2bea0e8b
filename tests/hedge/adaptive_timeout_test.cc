#include "stormguard/hedge/adaptive_timeout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "stormguard/core/clock.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;

std::shared_ptr<LatencyTracker> Tracker(std::int64_t min_samples = 20) {
  return LatencyTracker::Create({.window = 10s, .slices = 5, .min_samples = min_samples}).value();
}

std::shared_ptr<AdaptiveTimeout> Make(AdaptiveTimeoutOptions o) {
  auto a = AdaptiveTimeout::Create(std::move(o));
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return std::move(a).value();
}

// One attempt per millisecond against a destination answering in `latency`,
// each run under the timeout the policy gives it, for `span`.
void Drive(const AdaptiveTimeout& a, ManualClock& clock, Duration latency, Duration span) {
  for (Duration t = Duration::zero(); t < span; t += 1ms) {
    const Duration given = a.TimeoutFor(clock.Now(), kInfiniteDuration);
    const bool cut = latency > given;
    a.RecordAttempt({.elapsed = cut ? given : latency, .given = given, .timed_out = cut, .ok = !cut}, clock.Now());
    clock.Advance(1ms);
  }
}

TEST(AdaptiveTimeoutTest, ValidateNamesEveryBadField) {
  const AdaptiveTimeoutOptions bad{.latency = nullptr,
                                   .quantile = std::numeric_limits<double>::quiet_NaN(),
                                   .factor = std::numeric_limits<double>::infinity(),
                                   .min = Duration::zero(),
                                   .max = -1ms,
                                   .warmup = Duration::zero(),
                                   .refresh = -1ms};
  const auto errors = bad.Validate();
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_EQ(errors[0], "quantile: must be in (0, 1], got nan");
  EXPECT_THAT(errors[1], ::testing::StartsWith("factor: must be a finite number >= 1, got inf"));
  EXPECT_EQ(errors[2], "min: must be positive");
  EXPECT_EQ(errors[3], "max: must be at least min");
  EXPECT_EQ(errors[4], "warmup: must be positive");
  EXPECT_EQ(errors[5], "refresh: must not be negative");
  // The tracker is not configuration: Create() asks for it.
  const Status s = AdaptiveTimeout::Create(bad).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("adaptive timeout options: latency: must be set"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("; quantile: must be in (0, 1], got nan"));
}

TEST(AdaptiveTimeoutTest, RefusesOutOfRangeQuantileAndFactor) {
  for (double q : {0.0, -0.5, 1.5, std::numeric_limits<double>::infinity()}) {
    AdaptiveTimeoutOptions o{.latency = Tracker(), .quantile = q};
    EXPECT_THAT(o.Validate(), ElementsAre(::testing::StartsWith("quantile: must be in (0, 1]"))) << q;
  }
  for (double f : {0.99, -2.0, std::numeric_limits<double>::quiet_NaN()}) {
    AdaptiveTimeoutOptions o{.latency = Tracker(), .factor = f};
    EXPECT_THAT(o.Validate(), ElementsAre(::testing::StartsWith("factor: must be a finite number >= 1"))) << f;
  }
  const AdaptiveTimeoutOptions edges{.latency = Tracker(), .quantile = 1.0, .factor = 1.0};
  EXPECT_THAT(edges.Validate(), ElementsAre());
}

TEST(AdaptiveTimeoutTest, WarmupUntilTheTrackerHoldsMinSamples) {
  ManualClock clock;
  auto a = Make({.latency = Tracker(20), .warmup = 250ms, .refresh = Duration::zero()});
  for (int i = 0; i < 19; ++i) a->RecordAttempt({.elapsed = 10ms, .ok = true}, clock.Now());
  EXPECT_EQ(a->TimeoutFor(clock.Now(), kInfiniteDuration), 250ms);
  a->RecordAttempt({.elapsed = 10ms, .ok = true}, clock.Now());
  const Duration live = a->TimeoutFor(clock.Now(), kInfiniteDuration);
  EXPECT_GE(live, 20ms);  // 2 x p99.9 of 10 ms, at most 1/16 late
  EXPECT_LT(live, 20ms * 17 / 16);
}

TEST(AdaptiveTimeoutTest, ClampsToMinAndMax) {
  ManualClock clock;
  auto fast = Make({.latency = Tracker(1), .min = 5ms, .max = 250ms, .refresh = Duration::zero()});
  fast->RecordAttempt({.elapsed = 100us, .ok = true}, clock.Now());
  EXPECT_EQ(fast->TimeoutFor(clock.Now(), kInfiniteDuration), 5ms);
  auto slow = Make({.latency = Tracker(1), .min = 5ms, .max = 250ms, .refresh = Duration::zero()});
  slow->RecordAttempt({.elapsed = 3s, .ok = true}, clock.Now());
  EXPECT_EQ(slow->TimeoutFor(clock.Now(), kInfiniteDuration), 250ms);
}

TEST(AdaptiveTimeoutTest, NeverBeyondTheRemainingDeadline) {
  ManualClock clock;
  auto a = Make({.latency = Tracker(), .warmup = 250ms});
  EXPECT_EQ(a->TimeoutFor(clock.Now(), 40ms), 40ms);
  EXPECT_EQ(a->TimeoutFor(clock.Now(), Duration::zero()), Duration::zero());
  EXPECT_EQ(a->TimeoutFor(clock.Now(), -3ms), Duration::zero());
  EXPECT_EQ(a->TimeoutFor(clock.Now(), 1s), 250ms);
}

TEST(AdaptiveTimeoutTest, KeepsTheCachedValueUntilTheNextRefresh) {
  ManualClock clock;
  auto a = Make({.latency = Tracker(1), .warmup = 250ms, .refresh = 100ms});
  EXPECT_EQ(a->Current(clock.Now()), 250ms);  // computed now: no samples yet
  a->RecordAttempt({.elapsed = 10ms, .ok = true}, clock.Now());
  clock.Advance(99ms);
  EXPECT_EQ(a->Current(clock.Now()), 250ms);
  clock.Advance(1ms);
  EXPECT_LT(a->Current(clock.Now()), 25ms);
}

TEST(AdaptiveTimeoutTest, RecordsSuccessesAndCutOffAttemptsAsTheirTimeoutOnly) {
  ManualClock clock;
  auto tracker = Tracker(1);
  auto a = Make({.latency = tracker});
  a->RecordAttempt({.elapsed = 1ms, .given = 50ms, .ok = false}, clock.Now());  // a fast refusal
  EXPECT_EQ(tracker->Count(clock.Now()), 0);
  // The stop was seen a little early (or the clock is coarse): still the timeout.
  a->RecordAttempt({.elapsed = 49ms, .given = 50ms, .timed_out = true}, clock.Now());
  EXPECT_GE(tracker->Quantile(1.0, clock.Now()).value(), 50ms);
  a->RecordAttempt({.elapsed = 70ms, .given = 50ms, .timed_out = true}, clock.Now());  // it overran
  EXPECT_GE(tracker->Quantile(1.0, clock.Now()).value(), 70ms);
  EXPECT_EQ(tracker->Count(clock.Now()), 2);
}

// Sharing a hedge's tracker: the hedge records the successes, the timeout
// only what the hedge cannot see, the attempts it cut off.
TEST(AdaptiveTimeoutTest, LeavesSuccessesToTheOtherRecorderWhenAsked) {
  ManualClock clock;
  auto tracker = Tracker(1);
  auto a = Make({.latency = tracker, .record_successes = false});
  a->RecordAttempt({.elapsed = 10ms, .given = 50ms, .ok = true}, clock.Now());
  EXPECT_EQ(tracker->Count(clock.Now()), 0);
  a->RecordAttempt({.elapsed = 50ms, .given = 50ms, .timed_out = true}, clock.Now());
  EXPECT_EQ(tracker->Count(clock.Now()), 1);
  EXPECT_GE(tracker->Quantile(1.0, clock.Now()).value(), 50ms);
}

// The known failure of latency-derived timeouts: latency degrades for
// everyone, no success is ever slower than the timeout, so a timeout fed only
// by successes stays put and every attempt times out. Recording cut-off
// attempts as their timeout lets it climb by `factor` per refresh.
TEST(AdaptiveTimeoutTest, RisesWithLatencyThatDegradesForEveryoneUpToMax) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto a = Make(
      {.latency = Tracker(), .quantile = 0.999, .factor = 2, .min = 5ms, .max = 1s, .warmup = 250ms, .refresh = 100ms});
  Drive(*a, clock, 10ms, 12s);  // healthy: a full window of 10 ms answers
  const Duration healthy = a->Current(clock.Now());
  EXPECT_GE(healthy, 20ms);
  EXPECT_LT(healthy, 25ms);

  // 400 ms for everyone. Each refresh can at most double the value, so
  // covering 400 ms from ~21 ms takes at least five; allow ten.
  int refreshes = 0;
  while (a->Current(clock.Now()) < 400ms && refreshes < 10) {
    Drive(*a, clock, 400ms, 100ms);
    ++refreshes;
  }
  EXPECT_GE(a->Current(clock.Now()), 400ms) << "after " << refreshes << " refreshes";
  EXPECT_GE(refreshes, 5);
  // It keeps covering the slow answers and never passes max.
  for (int i = 0; i < 150; ++i) {
    Drive(*a, clock, 400ms, 100ms);
    ASSERT_GE(a->Current(clock.Now()), 400ms) << i;
    ASSERT_LE(a->Current(clock.Now()), 1s) << i;
  }
  // Once the window holds only 400 ms answers it settles at 2 x p99.9.
  EXPECT_GE(a->Current(clock.Now()), 800ms);

  Drive(*a, clock, 10ms, 12s);  // recovered: the slow samples age out
  EXPECT_LT(a->Current(clock.Now()), 25ms);
}

// The first time after a slowdown, second by second, that the timeout is
// within 2x of `healthy` (driving 10 ms answers); -1 s: not within 10 s.
Duration BackWithinTwice(const AdaptiveTimeout& a, ManualClock& clock, Duration healthy) {
  for (Duration t = Duration::zero(); t <= 10s; t += 100ms) {
    if (a.Current(clock.Now()) <= 2 * healthy) return t;
    Drive(a, clock, 10ms, 100ms);
  }
  return -1s;
}

AdaptiveTimeoutOptions Followed(std::shared_ptr<LatencyTracker> tracker) {
  return {.latency = std::move(tracker), .factor = 2, .min = 5ms, .max = 1s, .warmup = 250ms, .refresh = 100ms};
}

// After a slowdown the window still holds 10 s of slow answers; once the
// newest samples are fast the timeout follows them, within 5 s (the newest
// two of five 2 s slices must be clear of the slow ones), not 10 s.
TEST(AdaptiveTimeoutTest, ComesBackDownWithinFiveSecondsOfTheRecovery) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto a = Make(Followed(Tracker()));
  Drive(*a, clock, 10ms, 12s);
  const Duration healthy = a->Current(clock.Now());
  Drive(*a, clock, 300ms, 10s);  // slow for everyone: the timeout climbs to cover it
  EXPECT_GE(a->Current(clock.Now()), 600ms);
  const Duration back = BackWithinTwice(*a, clock, healthy);
  EXPECT_GE(back, 0s);
  EXPECT_LE(back, 5s);
}

// A steady 1% of slow answers is the destination's tail, not a recovery:
// the newest samples hold it as the window does, and the timeout keeps
// covering it.
TEST(AdaptiveTimeoutTest, ASteadySlowShareKeepsItsTimeout) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto a = Make(Followed(Tracker()));
  for (int i = 0; i < 30'000; ++i) {  // 30 s, one attempt a millisecond, 1 in 100 at 300 ms
    const Duration latency = i % 100 == 0 ? 300ms : 10ms;
    const Duration given = a->TimeoutFor(clock.Now(), kInfiniteDuration);
    const bool cut = latency > given;
    a->RecordAttempt({.elapsed = cut ? given : latency, .given = given, .timed_out = cut, .ok = !cut}, clock.Now());
    clock.Advance(1ms);
    if (i >= 12'000) {
      ASSERT_GE(a->Current(clock.Now()), 300ms) << i;
    }
  }
}

TEST(AdaptiveTimeoutTest, StopsAtMaxWhenLatencyExceedsIt) {
  ManualClock clock(TimePoint(std::chrono::hours(1)));
  auto a = Make({.latency = Tracker(), .min = 5ms, .max = 250ms, .warmup = 250ms});
  Drive(*a, clock, 10ms, 12s);
  for (int i = 0; i < 30; ++i) {
    Drive(*a, clock, 2s, 100ms);
    ASSERT_LE(a->Current(clock.Now()), 250ms);
  }
  EXPECT_EQ(a->Current(clock.Now()), 250ms);
}

}  // namespace
}  // namespace stormguard
