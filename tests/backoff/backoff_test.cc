// Deterministic curves, the cap, overflow safety and validation.
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
#include "core/range_test_util.h"

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

// ---- the classic table: base 100ms, 4 retries ---------------------------

// proportion is a fraction of the wait: 20 (a percent) is refused.
TEST(BackoffOptionsRangeTest, ProportionIsAFraction) {
  testkit::ExpectRangeChecked(BackoffOptions{}, &BackoffOptions::proportion, "proportion", kFraction);
}

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
      const Backoff b = Make({.kind = kind, .base = 70ms, .cap = 2s, .jitter = jitter, .spread = 500ms});
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
        const Backoff b = Make({.kind = kind, .base = kDay, .cap = cap, .jitter = jitter, .spread = kDay});
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
       {"base: ", "step: ", "multiplier: ", "cap: ", "proportion: ", "spread: ", "decorrelated_growth: "}) {
    EXPECT_THAT(errors, Contains(StartsWith(field))) << field;
  }
  const Result<Backoff> b = Backoff::Create(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(),
              AllOf(HasSubstr("base: must not be negative"), HasSubstr("step: "), HasSubstr("multiplier: "),
                    HasSubstr("cap: must be positive"), HasSubstr("proportion: "), HasSubstr("spread: "),
                    HasSubstr("decorrelated_growth: ")));
}

TEST(BackoffTest, ValidateRejectsCapBelowBase) {
  EXPECT_THAT((BackoffOptions{.base = 2s, .cap = 1s}.Validate()), ElementsAre("cap: must be at least base"));
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
