#include "stormguard/sim/chain_scenario.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

ChainRun RunOne(ChainScenarioOptions o, Control c) {
  o.controls = {c};
  auto r = RunChainScenario(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r->runs.at(0);
}

// docs/retry-amplification.md's table: 1, 3, 9, 27, 64.
TEST(ChainScenarioTest, EveryLayerRetryingGivesExactlyOnePlusRetriesToTheLayers) {
  const std::pair<int, int> rows[] = {{1, 0}, {1, 2}, {2, 2}, {3, 2}, {3, 3}, {4, 1}, {2, 4}};
  for (auto [layers, retries] : rows) {
    const ChainRun r = RunOne({.layers = layers, .retries = retries, .duration = 5s}, Control::kNone);
    EXPECT_EQ(r.amplification, UncontrolledAmplification(layers, retries)) << layers << "x" << retries;
    EXPECT_EQ(r.bottom_attempts, static_cast<std::int64_t>(UncontrolledAmplification(layers, retries)) * r.offered);
    EXPECT_EQ(r.success_rate, 0.0);
  }
}

TEST(ChainScenarioTest, EachLayerSeesTheLayerAboveTimesOnePlusRetries) {
  const ChainRun r = RunOne({.layers = 3, .retries = 2, .duration = 5s}, Control::kNone);
  ASSERT_EQ(r.layers.size(), 4u);
  EXPECT_EQ(r.layers[0].arrivals, r.offered);
  EXPECT_EQ(r.layers[1].arrivals, 3 * r.offered);
  EXPECT_EQ(r.layers[2].arrivals, 9 * r.offered);
  EXPECT_EQ(r.layers[3].name, "bottom");
  EXPECT_EQ(r.layers[3].arrivals, 27 * r.offered);
}

TEST(ChainScenarioTest, NoRetryMarkerLeavesOnlyTheBottomLayerRetrying) {
  for (int layers : {2, 3, 4}) {
    const ChainRun r = RunOne({.layers = layers, .retries = 2, .duration = 5s}, Control::kNoRetry);
    EXPECT_EQ(r.amplification, 3.0) << layers;
  }
}

TEST(ChainScenarioTest, RetryFlagMakesGrowthLinearInTheLayers) {
  for (auto [layers, retries] : {std::pair{2, 2}, {3, 2}, {3, 3}, {5, 2}}) {
    const ChainRun r = RunOne({.layers = layers, .retries = retries, .duration = 5s}, Control::kRetryFlag);
    EXPECT_EQ(r.amplification, 1.0 + retries * layers) << layers << "x" << retries;
  }
}

// The timeout case: the marker comes back after the caller's own
// per-attempt timeout has fired, so it is too late to stop anyone.
TEST(ChainScenarioTest, HangsDefeatTheNoRetryMarkerButNotTheRetryFlag) {
  const ChainScenarioOptions o{.layers = 3, .retries = 2, .failure = Failure::kHang, .duration = 5s};
  EXPECT_EQ(RunOne(o, Control::kNone).amplification, 27.0);
  EXPECT_EQ(RunOne(o, Control::kNoRetry).amplification, 27.0);
  EXPECT_EQ(RunOne(o, Control::kRetryFlag).amplification, 7.0);
}

TEST(ChainScenarioTest, SameSeedSameRunDifferentSeedDifferentTimeline) {
  const ChainScenarioOptions o{.layers = 2, .retries = 2, .duration = 3s, .failure_rate = 0.5, .seed = 9};
  const ChainRun a = RunOne(o, Control::kNone);
  const ChainRun b = RunOne(o, Control::kNone);
  EXPECT_EQ(a.series.arrivals, b.series.arrivals);
  EXPECT_EQ(a.series.retries, b.series.retries);
  EXPECT_EQ(a.bottom_attempts, b.bottom_attempts);
  ChainScenarioOptions other = o;
  other.seed = 10;
  EXPECT_NE(RunOne(other, Control::kNone).bottom_attempts, a.bottom_attempts);
}

TEST(ChainScenarioTest, InvalidOptionsNameTheField) {
  auto r = RunChainScenario({.layers = 0, .rate = -1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("layers"), std::string::npos);
  EXPECT_NE(r.status().message().find("rate"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::sim

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

double LayerRatio(const ChainRun& r, std::size_t layer) {
  return static_cast<double>(r.layers[layer + 1].arrivals) / static_cast<double>(r.layers[layer].arrivals);
}

// The failure-rate gate: a layer adds at most ~10% retries, whatever the
// failure rate; below 10% failures it lets every retry through, so the
// bottom layer adds about one retry per failure.
TEST(ChainControlsTest, TheGateKeepsEveryLayerAtOrUnderOnePointOne) {
  for (double failure_rate : {0.02, 0.05, 0.08, 0.1, 0.2, 0.5, 1.0}) {
    const ChainRun r =
        RunOne({.layers = 3, .retries = 2, .duration = 10s, .failure_rate = failure_rate}, Control::kGate);
    for (std::size_t layer = 0; layer < 3; ++layer) {
      EXPECT_LE(LayerRatio(r, layer), 1.1) << "failure rate " << failure_rate << ", layer " << layer + 1;
      EXPECT_GE(LayerRatio(r, layer), 1.0) << "failure rate " << failure_rate << ", layer " << layer + 1;
    }
    EXPECT_LE(r.amplification, 1.1 * 1.1 * 1.1);
    if (failure_rate < 0.1) {
      EXPECT_GE(LayerRatio(r, 2), 1.0 + 0.9 * failure_rate) << "failure rate " << failure_rate;
    }
  }
}

// The token bucket lets a layer retry about token_ratio (0.1) times per
// success, plus its 10 starting tokens: the extra load is bounded by the
// budget, not by the retry count, and the budget is spent, not hoarded.
TEST(ChainControlsTest, TheBudgetBoundsEachLayerByItsTokens) {
  for (double failure_rate : {0.3, 0.5, 1.0}) {
    const ChainRun none =
        RunOne({.layers = 3, .retries = 2, .duration = 10s, .failure_rate = failure_rate}, Control::kNone);
    const ChainRun r =
        RunOne({.layers = 3, .retries = 2, .duration = 10s, .failure_rate = failure_rate}, Control::kBudget);
    for (std::size_t layer = 0; layer < 3; ++layer) {
      const double arrivals = static_cast<double>(r.layers[layer].arrivals);
      EXPECT_LE(LayerRatio(r, layer), 1.0 + 0.1 + 10.0 / arrivals) << failure_rate << " layer " << layer + 1;
      // Every failure wants a retry: at least the starting tokens go, and
      // most of what the successes earn.
      EXPECT_GE(r.layers[layer].retries, 10) << failure_rate << " layer " << layer + 1;
      EXPECT_GE(LayerRatio(r, layer), 1.0 + 0.08 * (1.0 - failure_rate)) << failure_rate << " layer " << layer + 1;
    }
    EXPECT_LT(r.amplification, 1.34);
    EXPECT_LT(r.amplification, none.amplification);
  }
}

TEST(ChainControlsTest, AllControlsTogetherKeepTheBottomAtOrUnderTheOfferedLoad) {
  for (Failure f : {Failure::kError, Failure::kHang}) {
    const ChainRun r = RunOne({.layers = 3, .retries = 2, .failure = f, .duration = 10s}, Control::kAll);
    EXPECT_LE(r.amplification, 1.0) << FailureName(f);
  }
}

TEST(ChainControlsTest, AllControlsLeaveAHealthyChainAlone) {
  const ChainRun r = RunOne({.layers = 3, .retries = 2, .duration = 10s, .failure_rate = 0.01}, Control::kAll);
  EXPECT_GT(r.success_rate, 0.999);
  EXPECT_LT(r.amplification, 1.02);
}

}  // namespace
}  // namespace stormguard::sim
