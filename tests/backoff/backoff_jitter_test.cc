// Jitter: bounds and spread over many seeded draws, and expected values.
#include "stormguard/backoff/backoff.h"

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backoff/backoff_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using namespace ::stormguard::backoff_testing;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- matchers can fail ------------------------------------------------------

TEST(BackoffMatcherTest, IsWithinRejectsAWaitOutsideTheRange) {
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Duration(101ms), IsWithin(0ms, 100ms)), "which is 101");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Duration(49ms), IsWithin(50ms, 100ms)), "is within");
  EXPECT_THAT(Duration(100ms), IsWithin(0ms, 100ms));
}

TEST(BackoffMatcherTest, SpreadsAcrossRejectsDrawsStuckInOneQuarter) {
  const std::vector<Duration> lockstep(1000, 400ms);
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(lockstep, SpreadsAcross(0ms, 400ms)), "low quarter missed");
  const std::vector<Duration> low_only(1000, 10ms);
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(low_only, SpreadsAcross(0ms, 400ms)), "high quarter missed");
  EXPECT_THAT((std::vector<Duration>{0ms, 400ms}), SpreadsAcross(0ms, 400ms));
}

// ---- jitter bounds over many draws -------------------------------------------

TEST(BackoffTest, FullJitterStaysWithinZeroAndCeiling) {
  const Backoff b = Make({.base = 100ms, .cap = 1s, .jitter = Jitter::kFull});
  Random rng(10);
  for (int n = 1; n <= 6; ++n) {
    EXPECT_THAT(Draws(b, n, 2000, rng), Each(IsWithin(Duration::zero(), b.Ceiling(n)))) << n;
  }
}

TEST(BackoffTest, EqualJitterStaysWithinHalfAndWholeCeiling) {
  const Backoff b = Make({.base = 100ms, .cap = 1s, .jitter = Jitter::kEqual});
  Random rng(11);
  for (int n = 1; n <= 6; ++n) {
    const Duration c = b.Ceiling(n);
    EXPECT_THAT(Draws(b, n, 2000, rng), Each(IsWithin(c / 2, c))) << n;
    EXPECT_EQ(b.Range(n), std::make_pair(c / 2, c));
  }
}

TEST(BackoffTest, DecorrelatedJitterStaysWithinBaseAndThreeTimesPreviousCapped) {
  const Backoff b = Make({.base = 100ms, .cap = 5s, .jitter = Jitter::kDecorrelated});
  Random rng(12);
  for (int chain = 0; chain < 500; ++chain) {
    Duration previous = Duration::zero();
    for (int n = 1; n <= 10; ++n) {
      const Duration hi = std::min(Duration(5s), 3 * std::max(previous, Duration(100ms)));
      const Duration w = b.Next(n, previous, rng);
      ASSERT_THAT(w, IsWithin(Duration(100ms), hi)) << "retry " << n;
      ASSERT_THAT(w, IsWithin(b.Range(n).first, b.Range(n).second)) << "retry " << n;
      previous = w;
    }
  }
}

TEST(BackoffTest, DecorrelatedRangeGrowsThreefoldFromBaseUpToCap) {
  const Backoff b = Make({.base = 100ms, .cap = 5s, .jitter = Jitter::kDecorrelated});
  EXPECT_EQ(b.Range(1), std::make_pair(Duration(100ms), Duration(300ms)));
  EXPECT_EQ(b.Range(2), std::make_pair(Duration(100ms), Duration(900ms)));
  EXPECT_EQ(b.Range(3), std::make_pair(Duration(100ms), Duration(2700ms)));
  EXPECT_EQ(b.Range(4), std::make_pair(Duration(100ms), Duration(5s)));
}

TEST(BackoffTest, ProportionalJitterStaysWithinEightyAndHundredTwentyPercentCapped) {
  const Backoff b = Make({.base = 100ms, .cap = 1s, .jitter = Jitter::kProportional});
  Random rng(13);
  for (int n = 1; n <= 6; ++n) {
    const Duration c = b.Ceiling(n);
    const Duration lo = SaturatingScale(c, 0.8);
    const Duration hi = std::min(Duration(1s), SaturatingScale(c, 1.2));
    EXPECT_THAT(Draws(b, n, 2000, rng), Each(IsWithin(lo, hi))) << n;
  }
  EXPECT_EQ(b.Range(1), std::make_pair(Duration(80ms), Duration(120ms)));
  EXPECT_EQ(b.Range(4), std::make_pair(Duration(640ms), Duration(960ms)));
  EXPECT_EQ(b.Range(5), std::make_pair(Duration(800ms), Duration(1s)));  // 1.2 x 1s capped
}

TEST(BackoffTest, UniformJitterStaysWithinSpreadOfCeilingCappedAndNonNegative) {
  const Backoff b =
      Make({.kind = BackoffKind::kLinear, .base = 100ms, .cap = 500ms, .jitter = Jitter::kUniform, .spread = 150ms});
  Random rng(14);
  for (int n = 1; n <= 6; ++n) {
    const Duration c = b.Ceiling(n);
    const Duration lo = std::max(Duration::zero(), c - 150ms);
    const Duration hi = std::min(Duration(500ms), c + 150ms);
    EXPECT_THAT(Draws(b, n, 2000, rng), Each(IsWithin(lo, hi))) << n;
  }
  EXPECT_EQ(b.Range(1), std::make_pair(Duration::zero(), Duration(250ms)));
  EXPECT_EQ(b.Range(3), std::make_pair(Duration(150ms), Duration(450ms)));
  EXPECT_EQ(b.Range(5), std::make_pair(Duration(350ms), Duration(500ms)));
}

TEST(BackoffTest, UniformJitterWithZeroSpreadIsTheCeiling) {
  const Backoff b = Make({.base = 100ms, .jitter = Jitter::kUniform});
  Random rng(15);
  EXPECT_THAT(Draws(b, 2, 100, rng), Each(Duration(200ms)));
}

// ---- jitter spreads -----------------------------------------------------------

TEST(BackoffTest, EveryJitterSpreadsOverItsRange) {
  Random rng(20);
  for (Jitter jitter : {Jitter::kFull, Jitter::kEqual, Jitter::kProportional, Jitter::kUniform}) {
    const Backoff b = Make({.base = 100ms, .cap = 30s, .jitter = jitter, .spread = 100ms});
    const auto [lo, hi] = b.Range(3);
    EXPECT_THAT(Draws(b, 3, 1000, rng), SpreadsAcross(lo, hi)) << JitterName(jitter);
  }
}

TEST(BackoffTest, DecorrelatedJitterSpreadsFromBaseToThreeTimesPrevious) {
  const Backoff b = Make({.base = 100ms, .cap = 30s, .jitter = Jitter::kDecorrelated});
  Random rng(21);
  std::vector<Duration> draws;
  for (int i = 0; i < 1000; ++i) draws.push_back(b.Next(3, 300ms, rng));
  EXPECT_THAT(draws, Each(IsWithin(Duration(100ms), Duration(900ms))));
  EXPECT_THAT(draws, SpreadsAcross(Duration(100ms), Duration(900ms)));
}

TEST(BackoffTest, SameSeedGivesSameJitteredSchedule) {
  const Backoff b = Make({.base = 100ms, .jitter = Jitter::kFull});
  Random r1(7), r2(7), r3(8);
  const auto a = Schedule(b, 10, r1);
  EXPECT_EQ(a, Schedule(b, 10, r2));
  EXPECT_NE(a, Schedule(b, 10, r3));
}

// ---- expected values ----------------------------------------------------------

TEST(BackoffTest, ExpectedIsTheMidpointOfTheRange) {
  Random rng(30);
  for (Jitter jitter : {Jitter::kFull, Jitter::kEqual, Jitter::kProportional, Jitter::kUniform}) {
    const Backoff b = Make({.base = 100ms, .cap = 1s, .jitter = jitter, .spread = 300ms});
    for (int n = 1; n <= 5; ++n) {
      const auto [lo, hi] = b.Range(n);
      EXPECT_EQ(b.Expected(n), lo + (hi - lo) / 2);
      const auto draws = Draws(b, n, 20000, rng);
      const double mean_ms = ToMillis(Sum(draws)) / static_cast<double>(draws.size());
      EXPECT_NEAR(mean_ms, ToMillis(b.Expected(n)), ToMillis(hi - lo) * 0.02 + 1e-6)
          << JitterName(jitter) << " retry " << n;
    }
  }
}

TEST(BackoffTest, DecorrelatedExpectedFollowsTheChainMean) {
  // Uncapped: E[w1] = (100 + 300) / 2 = 200ms, E[w2] = (100 + 3 * 200) / 2 = 350ms...
  const Backoff b = Make({.base = 100ms, .cap = kDay, .jitter = Jitter::kDecorrelated});
  EXPECT_EQ(b.Expected(1), 200ms);
  EXPECT_EQ(b.Expected(2), 350ms);
  EXPECT_EQ(b.Expected(3), 575ms);
  Random rng(31);
  constexpr int kChains = 20000;
  std::vector<double> sum_ms(4, 0.0);
  for (int c = 0; c < kChains; ++c) {
    const auto waits = Schedule(b, 4, rng);
    for (int n = 0; n < 4; ++n) sum_ms[n] += ToMillis(waits[n]);
  }
  for (int n = 1; n <= 4; ++n) {
    EXPECT_NEAR(sum_ms[n - 1] / kChains, ToMillis(b.Expected(n)), ToMillis(b.Expected(n)) * 0.02) << n;
  }
}

TEST(BackoffTest, DecorrelatedExpectedIsExactUntilTheCapBindsThenAnUpperBound) {
  const Backoff b = Make({.base = 100ms, .cap = 30s, .jitter = Jitter::kDecorrelated});
  Random rng(32);
  constexpr int kChains = 20000;
  constexpr int kRetries = 12;
  std::vector<double> sum_ms(kRetries, 0.0);
  for (int c = 0; c < kChains; ++c) {
    const auto waits = Schedule(b, kRetries, rng);
    for (int n = 0; n < kRetries; ++n) sum_ms[n] += ToMillis(waits[n]);
  }
  for (int n = 1; n <= kRetries; ++n) {
    const double mean = sum_ms[n - 1] / kChains;
    const double expected = ToMillis(b.Expected(n));
    if (b.Range(n).second < 30s) {
      EXPECT_NEAR(mean, expected, expected * 0.02) << n;
    } else {
      EXPECT_LE(mean, expected * 1.02) << n;
    }
  }
  // Far out every draw is uniform in [base, cap] at best.
  EXPECT_EQ(b.Expected(1000), 15050ms);
  EXPECT_EQ(b.Expected(INT_MAX), 15050ms);
}

TEST(BackoffTest, DecorrelatedExpectedIsFastForHugeRetryNumbers) {
  // Growth below 2 converges to base / (2 - growth) without ever reaching the cap.
  const Backoff b = Make({.base = 100ms, .cap = kDay, .jitter = Jitter::kDecorrelated, .decorrelated_growth = 1.5});
  EXPECT_NEAR(ToMillis(b.Expected(INT_MAX)), 200.0, 1e-3);
  const Backoff tiny = Make({.base = 1ns, .cap = kDay, .jitter = Jitter::kDecorrelated, .decorrelated_growth = 1.5});
  EXPECT_LE(tiny.Range(INT_MAX).second, kDay);
}

}  // namespace
}  // namespace stormguard
