#include "stormguard/sim/budget_scenario.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

// 10 tokens, 500 retries a second wanted, 50 earned:
// gone in about 20 ms; afterwards about token_ratio retries per success.
TEST(BudgetScenarioTest, TenTokensLastAboutTwentyMillisecondsAtHalfFailures) {
  Duration sum = Duration::zero();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto r = RunBudgetScenario({.seed = seed});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->exhausted_after.has_value());
    EXPECT_GE(*r->exhausted_after, 8ms) << seed;
    EXPECT_LE(*r->exhausted_after, 50ms) << seed;
    EXPECT_NEAR(r->retries_per_request_before, 0.5, 0.3) << seed;
    EXPECT_NEAR(r->retries_per_request_after, 0.1 * (1 - 0.5) * 1.05, 0.01) << seed;
    sum += *r->exhausted_after;
  }
  EXPECT_GE(sum / 20, 18ms);
  EXPECT_LE(sum / 20, 28ms);
}

TEST(BudgetScenarioTest, DefaultSeedNumbers) {
  auto r = RunBudgetScenario({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exhausted_after, 24ms);
  EXPECT_EQ(r->offered, 9999);
}

TEST(BudgetScenarioTest, WithEveryCallFailingTheTenTokensGoToTheFirstTenFailures) {
  auto r = RunBudgetScenario({.failure_rate = 1.0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->retries, 10);
  // Request k arrives at k ms and fails 1 ms later; the 11th finds no token.
  EXPECT_EQ(r->exhausted_after, 12ms);
  EXPECT_EQ(r->retries_per_request_after, 0.0);
}

TEST(BudgetScenarioTest, AHealthyServiceNeverDrainsTheBucket) {
  auto r = RunBudgetScenario({.failure_rate = 0.05});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exhausted_after.has_value());
  EXPECT_NEAR(r->retries_per_request_before, 0.05, 0.01);
}

}  // namespace
}  // namespace stormguard::sim
