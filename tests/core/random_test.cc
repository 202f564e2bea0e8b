#include "stormguard/core/random.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace stormguard {
namespace {
using namespace std::chrono_literals;

TEST(RandomTest, SameSeedGivesSameSequence) {
  Random a(42), b(42);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.NextU64(), b.NextU64()) << i;
}

TEST(RandomTest, DifferentSeedsGiveDifferentSequences) {
  Random a(1), b(2);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += a.NextU64() == b.NextU64();
  EXPECT_EQ(same, 0);
}

TEST(RandomTest, ZeroSeedStillProducesVariedOutput) {
  Random r(0);
  const std::uint64_t first = r.NextU64();
  bool varied = false;
  for (int i = 0; i < 10; ++i) varied |= r.NextU64() != first;
  EXPECT_TRUE(varied);
}

TEST(RandomTest, BelowStaysInBounds) {
  Random r(7);
  EXPECT_EQ(r.Below(0), 0u);
  EXPECT_EQ(r.Below(1), 0u);
  for (std::uint64_t bound : {2ull, 3ull, 10ull, 1000ull, (1ull << 63) + 1, ~0ull}) {
    for (int i = 0; i < 1000; ++i) ASSERT_LT(r.Below(bound), bound) << bound;
  }
}

// Not a chi-square test: with a fixed seed the counts are fixed, so this
// only pins that no residue is grossly favoured.
TEST(RandomTest, BelowIsRoughlyUniform) {
  Random r(2024);
  constexpr int kBuckets = 6;
  constexpr int kDraws = 60000;
  std::array<int, kBuckets> counts{};
  for (int i = 0; i < kDraws; ++i) ++counts[r.Below(kBuckets)];
  for (int c : counts) {
    EXPECT_GT(c, kDraws / kBuckets * 95 / 100);
    EXPECT_LT(c, kDraws / kBuckets * 105 / 100);
  }
}

TEST(RandomTest, BelowALargeNonPowerOfTwoBoundIsNotSkewedLow) {
  // 2^63 + 2^62: a modulo reduction would put 2/3 of draws below 2^62.
  constexpr std::uint64_t kBound = (1ull << 63) + (1ull << 62);
  Random r(11);
  int low = 0;
  constexpr int kDraws = 30000;
  for (int i = 0; i < kDraws; ++i) low += r.Below(kBound) < (1ull << 62);
  EXPECT_NEAR(low / double(kDraws), 1.0 / 3, 0.02);
}

TEST(RandomTest, UniformIntIsInclusiveAndHitsBothEnds) {
  Random r(3);
  bool saw_lo = false, saw_hi = false;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t v = r.UniformInt(-2, 2);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 2);
    saw_lo |= v == -2;
    saw_hi |= v == 2;
  }
  EXPECT_TRUE(saw_lo);
  EXPECT_TRUE(saw_hi);
  EXPECT_EQ(r.UniformInt(5, 5), 5);
  EXPECT_EQ(r.UniformInt(5, 1), 5);
}

TEST(RandomTest, UniformIntCoversTheWholeInt64Range) {
  Random r(5);
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  bool negative = false, positive = false;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t v = r.UniformInt(kMin, kMax);
    negative |= v < 0;
    positive |= v > 0;
  }
  EXPECT_TRUE(negative);
  EXPECT_TRUE(positive);
}

TEST(RandomTest, UniformDoubleIsInHalfOpenUnitInterval) {
  Random r(9);
  double sum = 0;
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = r.UniformDouble();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / kDraws, 0.5, 0.01);
}

TEST(RandomTest, UniformDurationIsInclusive) {
  Random r(13);
  bool saw_lo = false, saw_hi = false;
  for (int i = 0; i < 2000; ++i) {
    const Duration d = r.UniformDuration(10ns, 13ns);
    ASSERT_GE(d, 10ns);
    ASSERT_LE(d, 13ns);
    saw_lo |= d == 10ns;
    saw_hi |= d == 13ns;
  }
  EXPECT_TRUE(saw_lo);
  EXPECT_TRUE(saw_hi);
  EXPECT_EQ(r.UniformDuration(100ms, 100ms), 100ms);
  EXPECT_EQ(r.UniformDuration(Duration::zero(), Duration::zero()), Duration::zero());
}

TEST(RandomTest, ExponentialHasTheRequestedMean) {
  Random r(42);
  constexpr int kDraws = 100000;
  double sum_ms = 0;
  for (int i = 0; i < kDraws; ++i) {
    const Duration d = r.Exponential(10ms);
    ASSERT_GE(d, Duration::zero());
    sum_ms += ToMillis(d);
  }
  // Standard error of the mean is 10ms / sqrt(1e5) ~ 0.03ms; allow ~1.5%.
  EXPECT_NEAR(sum_ms / kDraws, 10.0, 0.15);
  EXPECT_EQ(r.Exponential(Duration::zero()), Duration::zero());
}

TEST(RandomTest, ThreadLocalRandomIsUsable) {
  Random& r = ThreadLocalRandom();
  EXPECT_EQ(&r, &ThreadLocalRandom());
  EXPECT_LT(r.Below(10), 10u);
}

}  // namespace
}  // namespace stormguard
