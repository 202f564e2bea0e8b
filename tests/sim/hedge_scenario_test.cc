#include "stormguard/sim/hedge_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace stormguard::sim {
namespace hedge_scenario_test {
using std::chrono::milliseconds;
using ::testing::HasSubstr;

const HedgeRun& Mode(const HedgeScenarioResult& r, HedgeMode m) { return r.runs.at(static_cast<std::size_t>(m)); }

double Ms(Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

TEST(HedgeScenarioTest, ThePresetHasThePapersLeafShape) {
  const LatencyMixture m = LatencyMixture::TailAtScale();
  Random rng(7);
  std::vector<Duration> v(1'000'000);
  for (Duration& d : v) d = m.Sample(rng);
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return Ms(v[static_cast<std::size_t>(q * static_cast<double>(v.size())) - 1]); };
  // Dean & Barroso 2013, Table 1, one leaf: 1, 5 and 10 ms at p50, p95, p99.
  EXPECT_NEAR(at(0.5), 1.0, 0.1);
  EXPECT_NEAR(at(0.95), 5.0, 0.5);
  EXPECT_NEAR(at(0.99), 10.0, 1.0);
  // The rare stalls: one draw in 10,000, so a fan-out of 100 meets one in
  // 1,000 requests at ~1.8 s (the paper's p99.9 of a 100-server read).
  EXPECT_GT(at(0.9999), 100.0);
  EXPECT_GT(at(0.99999), 1000.0);
  EXPECT_LE(Ms(v.back()), 2000.0);
  EXPECT_GE(Ms(v.front()), 0.1);
}

TEST(HedgeScenarioTest, ASeedFixesEveryNumber) {
  const HedgeScenarioOptions o{.leaves = 10, .requests = 3000};
  auto a = RunHedgeScenario(o);
  auto b = RunHedgeScenario(o);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString();
  ASSERT_EQ(a->runs.size(), 3u);
  for (std::size_t i = 0; i < a->runs.size(); ++i) {
    const HedgeRun& x = a->runs[i];
    const HedgeRun& y = b->runs[i];
    EXPECT_EQ(x.hedges, y.hedges);
    EXPECT_EQ(x.hedge_wins, y.hedge_wins);
    EXPECT_EQ(x.last_delay, y.last_delay);
    EXPECT_EQ(x.leaf.p999, y.leaf.p999);
    EXPECT_EQ(x.fan_out.p50, y.fan_out.p50);
    EXPECT_EQ(x.fan_out.p999, y.fan_out.p999);
  }
  auto c = RunHedgeScenario({.leaves = 10, .requests = 3000, .seed = 2});
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->runs[2].hedges, a->runs[2].hedges);
}

// Hedging at the tracker's p95 sends ~5% more requests (The Tail at Scale).
// It cannot cut the leaf p99 3x: the hedge leaves at ~5 ms, half the p99 of
// 10 ms, so the answer is never before that. The cut shows further out.
TEST(HedgeScenarioTest, HedgingAtTheP95CutsTheLeafTailForAboutFivePercentMoreLoad) {
  auto r = RunHedgeScenario({.leaves = 1, .requests = 200'000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const HedgeRun& off = Mode(*r, HedgeMode::kOff);
  const HedgeRun& live = Mode(*r, HedgeMode::kLive);
  EXPECT_EQ(off.hedges, 0);
  EXPECT_GT(live.extra_load(), 0.03);
  EXPECT_LE(live.extra_load(), 0.06);
  EXPECT_NEAR(Ms(live.last_delay), 5.0, 0.6);  // the p95, at most 6.25% late
  EXPECT_LE(Ms(live.leaf.p99) * 1.5, Ms(off.leaf.p99));
  EXPECT_LE(Ms(live.leaf.p999) * 3, Ms(off.leaf.p999));
  EXPECT_EQ(live.leaf.p50, off.leaf.p50);  // the same first answers
}

// The paper: a hedge after 10 ms cut the p99.9 of a 100-server read from
// 1,800 ms to 74 ms for 2% more requests.
TEST(HedgeScenarioTest, AFanOutOfAHundredMeetsTheTailAndHedgingShrinksIt) {
  auto r = RunHedgeScenario({.leaves = 100, .requests = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const HedgeRun& off = Mode(*r, HedgeMode::kOff);
  const HedgeRun& fixed = Mode(*r, HedgeMode::kFixed);
  const HedgeRun& live = Mode(*r, HedgeMode::kLive);
  EXPECT_GE(Ms(off.fan_out.p50), 5 * Ms(off.leaf.p50));
  EXPECT_GE(Ms(off.fan_out.p99), 10 * Ms(off.leaf.p99));
  EXPECT_GT(Ms(off.fan_out.p999), 500.0);
  EXPECT_LE(fixed.extra_load(), 0.02);
  EXPECT_LE(Ms(fixed.fan_out.p999) * 10, Ms(off.fan_out.p999));
  // Hedging at the p95: the request's p99 cut at least 3x (11x here) for
  // at most 6% more requests.
  EXPECT_LE(Ms(live.fan_out.p99) * 5, Ms(off.fan_out.p99));
  EXPECT_LE(live.extra_load(), 0.06);
  EXPECT_LT(live.fan_out.p50, off.fan_out.p50);
}

TEST(HedgeScenarioTest, WaitingForPartOfTheLeavesSkipsTheirTail) {
  auto all = RunHedgeScenario({.leaves = 100, .requests = 2000});
  auto most = RunHedgeScenario({.leaves = 100, .wait_for = 0.95, .requests = 2000});
  ASSERT_TRUE(all.ok() && most.ok());
  EXPECT_EQ(most->waited_leaves, 95);
  EXPECT_LT(Ms(most->runs[0].fan_out.p99) * 5, Ms(all->runs[0].fan_out.p99));
}

TEST(HedgeScenarioTest, TheBudgetCapsTheExtraLoad) {
  auto r = RunHedgeScenario({.leaves = 10, .requests = 5000, .max_extra_load = 0.01});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const HedgeRun& live = Mode(*r, HedgeMode::kLive);
  EXPECT_LE(live.extra_load(), 0.011);
  EXPECT_GT(live.budget_refusals, 0);
  auto none = RunHedgeScenario({.leaves = 10, .requests = 500, .max_extra_load = 0});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(Mode(*none, HedgeMode::kFixed).hedges, 0);
}

TEST(HedgeScenarioTest, BadOptionsNameTheirField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::pair<HedgeScenarioOptions, const char*> cases[] = {
      {{.leaves = 0}, "leaves: "},
      {{.leaves = 1'000'000}, "leaves: "},
      {{.wait_for = 0}, "wait_for: "},
      {{.wait_for = 1.5}, "wait_for: "},
      {{.wait_for = nan}, "wait_for: "},
      {{.requests = 0}, "requests: "},
      {{.requests = 1'000'000}, "requests: "},  // x 100 leaves: too many kept
      {{.rate = nan}, "rate: "},
      {{.delay = -milliseconds(1)}, "delay: "},
      {{.delay = std::chrono::hours(1)}, "rate: "},  // fan-outs held an hour
      {{.quantile = 1.0}, "quantile: "},
      {{.max_extra_load = -0.1}, "max_extra_load: "},
      {{.latency = {.tail_share = nan}}, "latency.tail_share: "},
      {{.latency = {.tail_alpha = 0}}, "latency.tail_alpha: "},
      {{.latency = {.body_sd = -milliseconds(1)}}, "latency.body_sd: "},
      {{.latency = {.min = milliseconds(5), .max = milliseconds(1)}}, "latency.max: "},
  };
  for (const auto& [options, field] : cases) {
    auto r = RunHedgeScenario(options);
    ASSERT_FALSE(r.ok()) << field;
    EXPECT_THAT(r.status().message(), HasSubstr(field));
  }
}

}  // namespace hedge_scenario_test
}  // namespace stormguard::sim
