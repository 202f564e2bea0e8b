// Same options and seed, same numbers: every scenario is a pure function of
// its options, so the CLI prints the same bytes run after run.
#include <gtest/gtest.h>

#include "stormguard/sim/chain_scenario.h"
#include "stormguard/sim/contention.h"
#include "stormguard/sim/fleet_scenario.h"
#include "stormguard/sim/metastable.h"
#include "stormguard/sim/storm.h"

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

void ExpectSameSeries(const Series& a, const Series& b) {
  EXPECT_EQ(a.arrivals, b.arrivals);
  EXPECT_EQ(a.retries, b.retries);
  EXPECT_EQ(a.successes, b.successes);
  EXPECT_EQ(a.failures, b.failures);
  EXPECT_EQ(a.rejections, b.rejections);
  EXPECT_EQ(a.good_by_arrival, b.good_by_arrival);
}

TEST(DeterminismTest, StormRepeatsExactly) {
  auto a = RunStorm({.seed = 3}), b = RunStorm({.seed = 3}), c = RunStorm({.seed = 4});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  for (std::size_t i = 0; i < a->rows.size(); ++i) {
    EXPECT_EQ(a->rows[i].retries_per_bucket, b->rows[i].retries_per_bucket);
    EXPECT_EQ(a->rows[i].last_retry, b->rows[i].last_retry);
  }
  EXPECT_NE(a->rows[2].retries_per_bucket, c->rows[2].retries_per_bucket);  // full jitter moves
}

TEST(DeterminismTest, ChainRepeatsExactlyForEveryControl) {
  const ChainScenarioOptions o{.layers = 2,
                               .retries = 2,
                               .controls = {Control::kNone, Control::kBreaker, Control::kRetryFlag},
                               .duration = 5s,
                               .failure_rate = 0.3,
                               .seed = 11};
  auto a = RunChainScenario(o), b = RunChainScenario(o);
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::size_t i = 0; i < a->runs.size(); ++i) {
    EXPECT_EQ(a->runs[i].bottom_attempts, b->runs[i].bottom_attempts);
    EXPECT_EQ(a->runs[i].events, b->runs[i].events);
    ExpectSameSeries(a->runs[i].series, b->runs[i].series);
  }
}

TEST(DeterminismTest, EveryControlSeesTheSameClients) {
  auto r = RunChainScenario({.controls = {Control::kNone, Control::kNoRetry, Control::kBreaker}, .duration = 5s});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->runs[0].series.arrivals[0], r->runs[1].series.arrivals[0]);
  EXPECT_EQ(r->runs[0].series.arrivals[0], r->runs[2].series.arrivals[0]);
}

TEST(DeterminismTest, MetastableRepeatsExactly) {
  const MetastableOptions o{.controls = {Control::kNone}, .duration = 30s, .seed = 5};
  auto a = RunMetastable(o), b = RunMetastable(o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->runs[0].goodput_permille, b->runs[0].goodput_permille);
  ExpectSameSeries(a->runs[0].series, b->runs[0].series);
}

TEST(DeterminismTest, ContentionRepeatsExactly) {
  auto a = RunContention({.runs = 3, .seed = 8}), b = RunContention({.runs = 3, .seed = 8});
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::size_t i = 0; i < a->rows.size(); ++i) {
    EXPECT_EQ(a->rows[i].calls, b->rows[i].calls);
    EXPECT_EQ(a->rows[i].finished, b->rows[i].finished);
  }
}

TEST(DeterminismTest, FleetRepeatsExactlyForEveryPicker) {
  FleetScenarioOptions o{.hedge = {false, true},
                         .clients = 100,
                         .client_groups = 3,
                         .replicas = 30,
                         .requests = 5000,
                         .rate = 1000,
                         .seed = 9};
  auto a = RunFleetScenario(o), b = RunFleetScenario(o);
  o.seed = 10;
  auto c = RunFleetScenario(o);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(a->runs.size(), 16u);
  for (std::size_t i = 0; i < a->runs.size(); ++i) {
    EXPECT_EQ(a->runs[i].succeeded, b->runs[i].succeeded);
    EXPECT_EQ(a->runs[i].attempts, b->runs[i].attempts);
    EXPECT_EQ(a->runs[i].gray_attempts, b->runs[i].gray_attempts);
    EXPECT_EQ(a->runs[i].gray_wasted, b->runs[i].gray_wasted);
    EXPECT_EQ(a->runs[i].ejections, b->runs[i].ejections);
    EXPECT_EQ(a->runs[i].hedges, b->runs[i].hedges);
    EXPECT_EQ(a->runs[i].p99, b->runs[i].p99);
    EXPECT_EQ(a->runs[i].p999, b->runs[i].p999);
    EXPECT_EQ(a->runs[i].events, b->runs[i].events);
  }
  EXPECT_NE(a->runs[0].events, c->runs[0].events);  // another seed, another run
}

}  // namespace
}  // namespace stormguard::sim
