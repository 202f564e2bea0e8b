#include "stormguard/sim/deadline_demo.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

// 3 calls, 8.0 tokens left, stopped by the time left.
TEST(DeadlineDemoTest, ThreeCallsEightTokensStoppedByTheTimeLeft) {
  auto r = RunDeadlineDemo({});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->calls, 3);
  EXPECT_DOUBLE_EQ(r->tokens_left, 8.0);
  EXPECT_EQ(r->stop_reason, StopReason::kDeadline);
  EXPECT_EQ(StopExplanation(r->stop_reason), "the remaining budget cannot fit another wait plus a call");
  EXPECT_LE(r->elapsed, 250ms);
  ASSERT_EQ(r->attempts.size(), 3u);
  EXPECT_EQ(r->attempts[0].start, 0ms);
  EXPECT_EQ(r->attempts[1].start, 60ms + r->attempts[0].wait);
  EXPECT_LE(r->attempts[0].wait, 20ms);  // full jitter under 20 ms, then 40 ms
  EXPECT_LE(r->attempts[1].wait, 40ms);
}

TEST(DeadlineDemoTest, FiveAttemptsConfiguredOnlyThreeFitOnAlmostEverySeed) {
  int three = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    auto r = RunDeadlineDemo({.seed = seed});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->calls == 3 || r->calls == 4) << seed;
    EXPECT_DOUBLE_EQ(r->tokens_left, 10.0 - (r->calls - 1)) << seed;  // a token per retry sent
    EXPECT_EQ(r->stop_reason, StopReason::kDeadline) << seed;
    three += r->calls == 3;
  }
  EXPECT_GE(three, 48);  // a 4th call needs the three waits to sum to under 10 ms
}

TEST(DeadlineDemoTest, AnEmptyBudgetStopsRetriesBeforeTheDeadlineDoes) {
  auto r = RunDeadlineDemo({.max_tokens = 1, .token_ratio = 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->calls, 2);
  EXPECT_EQ(r->stop_reason, StopReason::kBudgetExhausted);
  EXPECT_DOUBLE_EQ(r->tokens_left, 0.0);
}

TEST(DeadlineDemoTest, WithoutAMinimumCallTimeAttemptsRunOutFirst) {
  auto r = RunDeadlineDemo({.budget = 10s, .min_call = 0ms});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->calls, 5);
  EXPECT_EQ(r->stop_reason, StopReason::kAttemptsExhausted);
}

}  // namespace
}  // namespace stormguard::sim
