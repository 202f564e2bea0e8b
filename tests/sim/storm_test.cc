#include "stormguard/sim/storm.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

StormRow Storm1(Strategy s, std::uint64_t seed = 42) {
  auto r = RunStorm({.strategies = {s}, .seed = seed});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r->rows.at(0);
}

TEST(StormTest, FixedBackoffKeepsAllThousandClientsInLockstep) {
  const StormRow r = Storm1(Strategy::kFixed);
  EXPECT_EQ(r.total_retries, 4000);
  EXPECT_EQ(r.peak_per_bucket, 1000);
  EXPECT_EQ(r.last_retry, 4s);
}

TEST(StormTest, ExponentialBackoffOnlyPostponesThePeak) {
  const StormRow r = Storm1(Strategy::kExponential);
  EXPECT_EQ(r.total_retries, 4000);
  EXPECT_EQ(r.peak_per_bucket, 1000);
  EXPECT_EQ(r.last_retry, 15s);
}

TEST(StormTest, FullJitterCutsThePeakToAboutASixthOnEverySeed) {
  std::int64_t peaks = 0;
  Duration lasts = Duration::zero();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const StormRow r = Storm1(Strategy::kFullJitter, seed);
    peaks += r.peak_per_bucket;
    lasts += r.last_retry;
    EXPECT_EQ(r.total_retries, 4000);
    EXPECT_GE(r.peak_per_bucket, 130) << "seed " << seed;
    EXPECT_LE(r.peak_per_bucket, 200) << "seed " << seed;
    EXPECT_GE(r.last_retry, 13s) << "seed " << seed;
    EXPECT_LE(r.last_retry, 15s) << "seed " << seed;
  }
  // The published run: 164 and 14.1 s. Our mean over 20 seeds:
  EXPECT_NEAR(static_cast<double>(peaks) / 20, 164, 10);
  EXPECT_NEAR(ToMillis(lasts / 20), 14100, 300);
}

TEST(StormTest, EqualAndDecorrelatedJitterSpreadTheRetriesToo) {
  for (Strategy s : {Strategy::kEqualJitter, Strategy::kDecorrelatedJitter}) {
    const StormRow r = Storm1(s);
    EXPECT_EQ(r.total_retries, 4000);
    EXPECT_LT(r.peak_per_bucket, 400) << StrategyName(s);
  }
}

TEST(StormTest, ARowDoesNotDependOnTheOtherRowsAsked) {
  auto all = RunStorm({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->rows.size(), 5u);
  const StormRow alone = Storm1(Strategy::kFullJitter);
  EXPECT_EQ(all->rows[2].strategy, Strategy::kFullJitter);
  EXPECT_EQ(all->rows[2].retries_per_bucket, alone.retries_per_bucket);
  EXPECT_EQ(all->rows[2].last_retry, alone.last_retry);
}

TEST(StormTest, InvalidOptionsNameEveryBadField) {
  auto r = RunStorm({.clients = 0, .retries = -1, .strategies = {}});
  ASSERT_FALSE(r.ok());
  const std::string msg = r.status().message();
  EXPECT_NE(msg.find("clients"), std::string::npos);
  EXPECT_NE(msg.find("retries"), std::string::npos);
  EXPECT_NE(msg.find("strategies"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::sim
