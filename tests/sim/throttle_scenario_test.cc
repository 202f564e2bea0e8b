#include "stormguard/sim/throttle_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using ::testing::HasSubstr;

ThrottleScenarioOptions Short() { return {.duration = std::chrono::minutes(3)}; }

TEST(ThrottleScenarioTest, TheThrottledBackendReceivesAboutKTimesWhatItAccepts) {
  auto r = RunThrottleScenario(Short());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->runs.size(), 4u);
  const ThrottleRun& naive = r->runs[0];
  const ThrottleRun& budget = r->runs[1];
  EXPECT_EQ(naive.strategy, ThrottleStrategy::kNaive);
  EXPECT_GE(naive.received_per_accepted(), 5 * 2.0);  // ~2.7 attempts a request, 1 in 10 accepted at best
  EXPECT_GT(budget.received_per_accepted(), 8.0);     // the budget trims retries, not first tries
  for (std::size_t i = 2; i < r->runs.size(); ++i) {
    const ThrottleRun& t = r->runs[i];
    EXPECT_EQ(t.strategy, ThrottleStrategy::kThrottle);
    EXPECT_LE(t.received_per_accepted(), t.k * 1.1) << t.k;
    EXPECT_GT(t.refused_local, 0);
  }
  // The backend stays busy at k = 2: within 3% of what naive retries get through.
  EXPECT_GT(r->runs[2].accepted, naive.accepted * 97 / 100);
}

TEST(ThrottleScenarioTest, ASeedFixesEveryNumber) {
  auto a = RunThrottleScenario(Short());
  auto b = RunThrottleScenario(Short());
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::size_t i = 0; i < a->runs.size(); ++i) {
    EXPECT_EQ(a->runs[i].received, b->runs[i].received);
    EXPECT_EQ(a->runs[i].accepted, b->runs[i].accepted);
    EXPECT_EQ(a->runs[i].refused_local, b->runs[i].refused_local);
  }
}

TEST(ThrottleScenarioTest, BadOptionsNameTheirField) {
  auto r = RunThrottleScenario({.clients = 0, .reject_share = 1.0, .ks = {0.5}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("clients: "));
  EXPECT_THAT(r.status().message(), HasSubstr("reject_share: "));
  EXPECT_THAT(r.status().message(), HasSubstr("k: "));
}

}  // namespace
}  // namespace stormguard::sim
