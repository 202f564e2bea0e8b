#include "stormguard/backoff/backoff.h"

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Ms(Duration d) { return std::to_string(ToMillis(d)) + " ms"; }

// A wait inside [lo, hi], inclusive.
MATCHER_P2(IsWithin, lo, hi, "is within [" + Ms(lo) + ", " + Ms(hi) + "]") {
  *result_listener << "which is " << Ms(arg);
  return arg >= lo && arg <= hi;
}

// Draws that reach both the lowest and the highest quarter of [lo, hi]:
// jitter that really spreads, not one that only stays in bounds.
MATCHER_P2(SpreadsAcross, lo, hi, "reaches both outer quarters of [" + Ms(lo) + ", " + Ms(hi) + "]") {
  const Duration quarter = (hi - lo) / 4;
  const bool low = std::any_of(arg.begin(), arg.end(), [&](Duration d) { return d <= lo + quarter; });
  const bool high = std::any_of(arg.begin(), arg.end(), [&](Duration d) { return d >= hi - quarter; });
  *result_listener << "low quarter " << (low ? "hit" : "missed") << ", high quarter "
                   << (high ? "hit" : "missed");
  return low && high;
}

Backoff Make(const BackoffOptions& o) {
  Result<Backoff> b = Backoff::Create(o);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return std::move(b).value();
}

// The first `retries` waits, each drawn from the wait before it.
std::vector<Duration> Schedule(const Backoff& b, int retries, Random& rng) {
  std::vector<Duration> waits;
  Duration previous = Duration::zero();
  for (int n = 1; n <= retries; ++n) waits.push_back(previous = b.Next(n, previous, rng));
  return waits;
}

std::vector<Duration> Schedule(const Backoff& b, int retries) {
  Random rng(42);
  return Schedule(b, retries, rng);
}

std::vector<Duration> Draws(const Backoff& b, int retry, int count, Random& rng) {
  std::vector<Duration> out;
  for (int i = 0; i < count; ++i) out.push_back(b.Next(retry, Duration::zero(), rng));
  return out;
}

Duration Sum(const std::vector<Duration>& v) { return std::accumulate(v.begin(), v.end(), Duration::zero()); }

constexpr Duration kDay = std::chrono::hours(24);
constexpr Jitter kAllJitters[] = {Jitter::kNone, Jitter::kFull, Jitter::kEqual,
                                  Jitter::kDecorrelated, Jitter::kProportional, Jitter::kUniform};
constexpr BackoffKind kAllKinds[] = {BackoffKind::kConstant, BackoffKind::kLinear,
                                     BackoffKind::kExponential};

// ---- matchers can fail ------------------------------------------------------

TEST(BackoffMatcherTest, IsWithinRejectsAWaitOutsideTheRange) {
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Duration(101ms), IsWithin(0ms, 100ms)), "which is 101");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Duration(49ms), IsWithin(50ms, 100ms)), "is within");
  EXPECT_THAT(Duration(100ms), IsWithin(0ms, 100ms));
}

TEST(BackoffMatcherTest, SpreadsAcrossRejectsDrawsStuckInOneQuarter) {
  const std::vector<Duration> lockstep(1000, 400ms);
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(lockstep, SpreadsAcross(0ms, 400ms)),
                          "low quarter missed");
  const std::vector<Duration> low_only(1000, 10ms);
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(low_only, SpreadsAcross(0ms, 400ms)),
                          "high quarter missed");
  EXPECT_THAT((std::vector<Duration>{0ms, 400ms}), SpreadsAcross(0ms, 400ms));
}

// ---- seed 000's table: base 100ms, 4 retries -----------------------------

TEST(BackoffTest, SeedTableFixed) {
  const Backoff b = Make({.kind = BackoffKind::kConstant, .base = 100ms});
  const auto waits = Schedule(b, 4);
  EXPECT_THAT(waits, ElementsAre(100ms, 100ms, 100ms, 100ms));
  EXPECT_EQ(Sum(waits), 400ms);
}

TEST(BackoffTest, SeedTableLinear) {
  const Backoff b = Make({.kind = BackoffKind::kLinear, .base = 100ms});
  const auto waits = Schedule(b, 4);
  EXPECT_THAT(waits, ElementsAre(100ms, 200ms, 300ms, 400ms));
  EXPECT_EQ(Sum(waits), 1s);
}

TEST(BackoffTest, SeedTableExponential) {
  const Backoff b = Make({.kind = BackoffKind::kExponential, .base = 100ms});
  const auto waits = Schedule(b, 4);
  EXPECT_THAT(waits, ElementsAre(100ms, 200ms, 400ms, 800ms));
  EXPECT_EQ(Sum(waits), 1500ms);
}

TEST(BackoffTest, SeedTableFullJitterRangesAndExpectedTotal) {
  const Backoff b = Make({.base = 100ms, .jitter = Jitter::kFull});
  const Duration highs[] = {100ms, 200ms, 400ms, 800ms};
  Duration expected_total = Duration::zero();
  for (int n = 1; n <= 4; ++n) {
    EXPECT_EQ(b.Range(n), std::make_pair(Duration::zero(), highs[n - 1])) << n;
    expected_total += b.Expected(n);
  }
  EXPECT_EQ(expected_total, 750ms);
}

TEST(BackoffTest, DeterministicStrategiesHaveDegenerateRangeAndExpectedEqualsWait) {
  for (BackoffKind kind : kAllKinds) {
    const Backoff b = Make({.kind = kind, .base = 100ms});
    for (int n = 1; n <= 6; ++n) {
      EXPECT_EQ(b.Range(n), std::make_pair(b.Ceiling(n), b.Ceiling(n)));
      EXPECT_EQ(b.Expected(n), b.Ceiling(n));
    }
  }
}

// ---- curves -------------------------------------------------------------

TEST(BackoffTest, LinearUsesItsOwnStepWhenGiven) {
  const Backoff b = Make({.kind = BackoffKind::kLinear, .base = 100ms, .step = 50ms});
  EXPECT_THAT(Schedule(b, 4), ElementsAre(100ms, 150ms, 200ms, 250ms));
}

TEST(BackoffTest, ExponentialWithMultiplierOneAndAHalf) {
  const Backoff b = Make({.base = 100ms, .multiplier = 1.5});
  EXPECT_THAT(Schedule(b, 4), ElementsAre(100ms, 150ms, 225ms, 337500us));
}

TEST(BackoffTest, ExponentialWithMultiplierThree) {
  const Backoff b = Make({.base = 100ms, .multiplier = 3});
  EXPECT_THAT(Schedule(b, 4), ElementsAre(100ms, 300ms, 900ms, 2700ms));
}

TEST(BackoffTest, ExponentialWithMultiplierOneIsConstant) {
  const Backoff b = Make({.base = 100ms, .multiplier = 1});
  EXPECT_THAT(Schedule(b, 4), ElementsAre(100ms, 100ms, 100ms, 100ms));
}

TEST(BackoffTest, RetryNumbersBelowOneCountAsTheFirstRetry) {
  const Backoff b = Make({.base = 100ms});
  EXPECT_EQ(b.Ceiling(0), 100ms);
  EXPECT_EQ(b.Ceiling(-7), 100ms);
  EXPECT_EQ(b.Ceiling(INT_MIN), 100ms);
}

TEST(BackoffTest, ExponentialGrowsUntilTheCapThenStays) {
  const Backoff b = Make({.base = 100ms, .cap = 1s});
  EXPECT_THAT(Schedule(b, 7), ElementsAre(100ms, 200ms, 400ms, 800ms, 1s, 1s, 1s));
}

TEST(BackoffTest, CapEqualToBaseMakesEveryWaitTheBase) {
  const Backoff b = Make({.kind = BackoffKind::kLinear, .base = 100ms, .cap = 100ms});
  EXPECT_THAT(Schedule(b, 3), ElementsAre(100ms, 100ms, 100ms));
}

TEST(BackoffTest, ZeroBaseMeansRetryAtOnceForAnyRetryNumber) {
  for (BackoffKind kind : kAllKinds) {
    const Backoff b = Make({.kind = kind, .base = Duration::zero(), .cap = 1s});
    for (int n : {1, 2, 100, 2000, INT_MAX}) {
      EXPECT_EQ(b.Ceiling(n), Duration::zero()) << BackoffKindName(kind) << " retry " << n;
    }
  }
}

// ---- every strategy stays under the cap and never wraps ---------------------

TEST(BackoffTest, EveryStrategyRespectsTheCapAtEveryRetry) {
  Random rng(1);
  for (BackoffKind kind : kAllKinds) {
    for (Jitter jitter : kAllJitters) {
      const Backoff b = Make({.kind = kind, .base = 70ms, .cap = 2s, .jitter = jitter,
                              .spread = 500ms});
      Duration previous = Duration::zero();
      for (int n = 1; n <= 200; ++n) {
        previous = b.Next(n, previous, rng);
        ASSERT_THAT(previous, IsWithin(Duration::zero(), 2s))
            << BackoffKindName(kind) << "/" << JitterName(jitter) << " retry " << n;
        ASSERT_LE(b.Range(n).second, 2s);
        ASSERT_LE(b.Expected(n), 2s);
      }
    }
  }
}

TEST(BackoffTest, RetryThousandWithOneDayBaseSaturatesAtCap) {
  Random rng(2);
  for (BackoffKind kind : kAllKinds) {
    const Backoff b = Make({.kind = kind, .base = kDay, .cap = 7 * kDay});
    EXPECT_EQ(b.Ceiling(1000), kind == BackoffKind::kConstant ? kDay : 7 * kDay);
    EXPECT_EQ(b.Next(1000, kDay, rng), b.Ceiling(1000));
  }
}

TEST(BackoffTest, HugeRetryNumbersNeverWrapOrGoNegative) {
  Random rng(3);
  for (BackoffKind kind : kAllKinds) {
    for (Jitter jitter : kAllJitters) {
      for (Duration cap : {7 * kDay, Duration::max()}) {
        const Backoff b = Make({.kind = kind, .base = kDay, .cap = cap, .jitter = jitter,
                                .spread = kDay});
        for (int n : {1000, INT_MAX}) {
          const Duration w = b.Next(n, cap, rng);
          EXPECT_THAT(w, IsWithin(Duration::zero(), cap))
              << BackoffKindName(kind) << "/" << JitterName(jitter) << " retry " << n;
          EXPECT_GE(b.Range(n).first, Duration::zero());
          EXPECT_LE(b.Range(n).second, cap);
          EXPECT_THAT(b.Expected(n), IsWithin(Duration::zero(), cap));
        }
      }
    }
  }
}

TEST(BackoffTest, HugeMultiplierSaturatesAtCap) {
  for (double m : {1e6, 1e300, std::numeric_limits<double>::max()}) {
    const Backoff b = Make({.base = 100ms, .multiplier = m, .cap = 30s});
    EXPECT_EQ(b.Ceiling(1), 100ms);
    EXPECT_EQ(b.Ceiling(2), 30s) << m;
    EXPECT_EQ(b.Ceiling(INT_MAX), 30s) << m;
  }
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
  const Backoff b = Make({.kind = BackoffKind::kLinear, .base = 100ms, .cap = 500ms,
                          .jitter = Jitter::kUniform, .spread = 150ms});
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
    EXPECT_NEAR(sum_ms[n - 1] / kChains, ToMillis(b.Expected(n)), ToMillis(b.Expected(n)) * 0.02)
        << n;
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
  const Backoff b = Make({.base = 100ms, .cap = kDay, .jitter = Jitter::kDecorrelated,
                          .decorrelated_growth = 1.5});
  EXPECT_NEAR(ToMillis(b.Expected(INT_MAX)), 200.0, 1e-3);
  const Backoff tiny = Make({.base = 1ns, .cap = kDay, .jitter = Jitter::kDecorrelated,
                             .decorrelated_growth = 1.5});
  EXPECT_LE(tiny.Range(INT_MAX).second, kDay);
}

// ---- validation -----------------------------------------------------------------

TEST(BackoffTest, DefaultOptionsAreValid) {
  EXPECT_TRUE(BackoffOptions{}.Validate().empty());
  EXPECT_TRUE(Backoff::Create({}).ok());
}

TEST(BackoffTest, ValidateNamesEveryBadField) {
  const BackoffOptions bad{.base = -1ms,
                           .step = -1ms,
                           .multiplier = 0.5,
                           .cap = Duration::zero(),
                           .proportion = 1.5,
                           .spread = -1ms,
                           .decorrelated_growth = 1.0};
  const auto errors = bad.Validate();
  for (const char* field :
       {"base: ", "step: ", "multiplier: ", "cap: ", "proportion: ", "spread: ",
        "decorrelated_growth: "}) {
    EXPECT_THAT(errors, Contains(StartsWith(field))) << field;
  }
  const Result<Backoff> b = Backoff::Create(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(),
              AllOf(HasSubstr("base: must not be negative"), HasSubstr("step: "),
                    HasSubstr("multiplier: "), HasSubstr("cap: must be positive"),
                    HasSubstr("proportion: "), HasSubstr("spread: "),
                    HasSubstr("decorrelated_growth: ")));
}

TEST(BackoffTest, ValidateRejectsCapBelowBase) {
  EXPECT_THAT((BackoffOptions{.base = 2s, .cap = 1s}.Validate()),
              ElementsAre("cap: must be at least base"));
}

TEST(BackoffTest, ValidateRejectsNonFiniteNumbers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THAT((BackoffOptions{.multiplier = nan}.Validate()), ElementsAre(StartsWith("multiplier: ")));
  EXPECT_THAT((BackoffOptions{.multiplier = inf}.Validate()), ElementsAre(StartsWith("multiplier: ")));
  EXPECT_THAT((BackoffOptions{.proportion = nan}.Validate()), ElementsAre(StartsWith("proportion: ")));
  EXPECT_THAT((BackoffOptions{.decorrelated_growth = inf}.Validate()),
              ElementsAre(StartsWith("decorrelated_growth: ")));
}

TEST(BackoffTest, DecorrelatedJitterNeedsAPositiveBase) {
  EXPECT_THAT((BackoffOptions{.base = Duration::zero(), .jitter = Jitter::kDecorrelated}.Validate()),
              ElementsAre("base: must be positive for decorrelated jitter"));
}

TEST(BackoffTest, NamesAreStable) {
  EXPECT_EQ(BackoffKindName(BackoffKind::kConstant), "constant");
  EXPECT_EQ(BackoffKindName(BackoffKind::kLinear), "linear");
  EXPECT_EQ(BackoffKindName(BackoffKind::kExponential), "exponential");
  EXPECT_EQ(JitterName(Jitter::kNone), "none");
  EXPECT_EQ(JitterName(Jitter::kFull), "full");
  EXPECT_EQ(JitterName(Jitter::kEqual), "equal");
  EXPECT_EQ(JitterName(Jitter::kDecorrelated), "decorrelated");
  EXPECT_EQ(JitterName(Jitter::kProportional), "proportional");
  EXPECT_EQ(JitterName(Jitter::kUniform), "uniform");
}

}  // namespace
}  // namespace stormguard
