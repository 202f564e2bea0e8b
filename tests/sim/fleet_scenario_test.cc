// The fleet scenario on a small fleet: pickers ordered by how much they
// send to gray replicas, ejection taking those out, limits named.
#include "stormguard/sim/fleet_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// 20 replicas (2 gray), 200 clients in 2 views, 10 s at 2000 requests/s.
FleetScenarioOptions SmallFleet(GrayMode mode) {
  return {.ejection = {false, true},
          .clients = 200,
          .client_groups = 2,
          .replicas = 20,
          .requests = 20'000,
          .rate = 2000,
          .gray_mode = mode,
          .seed = 3};
}

FleetScenarioResult RunSmallFleet(const FleetScenarioOptions& o) {
  Result<FleetScenarioResult> r = RunFleetScenario(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

// The run of `picker` with or without ejection.
const FleetRun& FleetRunOf(const FleetScenarioResult& r, PickerKind picker, bool ejection) {
  for (const FleetRun& run : r.runs) {
    if (run.picker == picker && run.ejection == ejection) return run;
  }
  ADD_FAILURE() << "no run for " << PickerKindName(picker);
  return r.runs.front();
}

// Slow gray replicas: the peak EWMA sees their latency and routes around them.
TEST(FleetScenarioTest, PeakEwmaWastesLessOnSlowGrayReplicasAndHasTheLowerTail) {
  const FleetScenarioResult r = RunSmallFleet(SmallFleet(GrayMode::kSlow));
  ASSERT_EQ(r.runs.size(), 8u);
  const FleetRun& ewma = FleetRunOf(r, PickerKind::kPeakEwma, false);
  for (PickerKind baseline : {PickerKind::kRandom, PickerKind::kRoundRobin}) {
    const FleetRun& other = FleetRunOf(r, baseline, false);
    EXPECT_LT(ewma.wasted_on_gray(), other.wasted_on_gray() / 2) << PickerKindName(baseline);
    EXPECT_LT(ewma.gray_share(), other.gray_share() / 2) << PickerKindName(baseline);
    EXPECT_LT(ewma.p99, other.p99) << PickerKindName(baseline);
    EXPECT_GE(ewma.success_rate(), other.success_rate()) << PickerKindName(baseline);
  }
  // Random and round robin cannot tell the classes apart: ~1 in 10 attempts goes gray.
  EXPECT_NEAR(FleetRunOf(r, PickerKind::kRandom, false).gray_share(), 0.1, 0.01);
  EXPECT_NEAR(FleetRunOf(r, PickerKind::kRoundRobin, false).gray_share(), 0.1, 0.01);
}

// The Tail at Scale: one hedge to another replica after the p95 cuts the
// tail a slow gray replica makes, for a few percent more attempts.
TEST(FleetScenarioTest, AHedgeAfterTheP95CutsTheTailOnAnotherReplica) {
  FleetScenarioOptions o = SmallFleet(GrayMode::kSlow);
  o.pickers = {PickerKind::kRoundRobin, PickerKind::kPeakEwma};
  o.ejection = {false};
  o.hedge = {false, true};
  const FleetScenarioResult r = RunSmallFleet(o);
  ASSERT_EQ(r.runs.size(), 4u);
  for (PickerKind picker : o.pickers) {
    const FleetRun* plain = nullptr;
    const FleetRun* hedged = nullptr;
    for (const FleetRun& run : r.runs) {
      if (run.picker == picker) (run.hedge ? hedged : plain) = &run;
    }
    ASSERT_TRUE(plain != nullptr && hedged != nullptr);
    EXPECT_EQ(plain->hedges, 0);
    EXPECT_GT(hedged->hedges, 0);
    EXPECT_LE(hedged->p99, plain->p99) << PickerKindName(picker);
    EXPECT_LE(hedged->p999, plain->p999) << PickerKindName(picker);
    EXPECT_GE(hedged->success_rate(), plain->success_rate()) << PickerKindName(picker);
    EXPECT_LT(hedged->attempts_per_request(), plain->attempts_per_request() + 0.1) << PickerKindName(picker);
  }
  // Round robin's p99 is a timed-out attempt and its retry; hedged, a hedge's answer.
  const auto p99_of = [&](bool hedge) {
    for (const FleetRun& run : r.runs) {
      if (run.picker == PickerKind::kRoundRobin && run.hedge == hedge) return run.p99;
    }
    return Duration::zero();
  };
  EXPECT_LT(p99_of(true), p99_of(false) / 4);
}

// Gray replicas failing after the usual time look as fast as the others:
// peak EWMA sees them only through the failure penalty; without it, only
// outlier ejection does.
TEST(FleetScenarioTest, PeakEwmaSeesFailuresThatComeFastThroughThePenalty) {
  const FleetScenarioResult r = RunSmallFleet(SmallFleet(GrayMode::kFail));
  const FleetRun& random = FleetRunOf(r, PickerKind::kRandom, false);
  const FleetRun& ewma = FleetRunOf(r, PickerKind::kPeakEwma, false);
  EXPECT_NEAR(random.gray_share(), 0.1, 0.015);
  EXPECT_LT(ewma.gray_share(), random.gray_share() / 5);
  EXPECT_LT(ewma.wasted_on_gray(), random.wasted_on_gray() / 5);

  FleetScenarioOptions blind = SmallFleet(GrayMode::kFail);
  blind.load.failure_penalty = Duration::zero();
  blind.pickers = {PickerKind::kPeakEwma};
  const FleetScenarioResult b = RunSmallFleet(blind);
  const FleetRun& blind_ewma = FleetRunOf(b, PickerKind::kPeakEwma, false);
  EXPECT_NEAR(blind_ewma.gray_share(), 0.1, 0.015);
  EXPECT_LT(FleetRunOf(b, PickerKind::kPeakEwma, true).wasted_on_gray(), blind_ewma.wasted_on_gray() / 2);
}

class FleetPickerOrderTest : public ::testing::TestWithParam<GrayMode> {};

TEST_P(FleetPickerOrderTest, EjectionTakesGrayAttemptsDownFurtherForEveryPicker) {
  const FleetScenarioResult r = RunSmallFleet(SmallFleet(GetParam()));
  for (PickerKind picker : kAllPickers) {
    const FleetRun& off = FleetRunOf(r, picker, false);
    const FleetRun& on = FleetRunOf(r, picker, true);
    EXPECT_EQ(off.ejections, 0) << PickerKindName(picker);
    EXPECT_LE(on.gray_attempts, off.gray_attempts) << PickerKindName(picker);
    EXPECT_LE(on.wasted_on_gray(), off.wasted_on_gray()) << PickerKindName(picker);
    // Peak EWMA already routes around a replica failing fast (the failure
    // penalty): ejection has next to nothing left to take.
    if (picker == PickerKind::kPeakEwma && GetParam() == GrayMode::kFail) continue;
    EXPECT_LT(on.gray_attempts, off.gray_attempts) << PickerKindName(picker);
    EXPECT_GT(on.ejections, 0) << PickerKindName(picker);
  }
}

INSTANTIATE_TEST_SUITE_P(GrayModes, FleetPickerOrderTest, ::testing::Values(GrayMode::kSlow, GrayMode::kFail),
                         [](const auto& p) { return std::string(GrayModeName(p.param)); });

TEST(FleetScenarioTest, CountsAddUpAndHealthyReplicasCarryTheLoad) {
  FleetScenarioOptions o = SmallFleet(GrayMode::kSlow);
  o.pickers = {PickerKind::kPeakEwma};
  o.ejection = {false};
  const FleetRun run = RunSmallFleet(o).runs.at(0);
  EXPECT_EQ(run.requests, 20'000);
  EXPECT_EQ(run.gray_replicas, 2);
  EXPECT_EQ(run.healthy_replicas, 18);
  EXPECT_GE(run.attempts, run.requests);
  EXPECT_LE(run.attempts, 2 * run.requests);
  EXPECT_LE(run.gray_wasted, run.gray_attempts);
  EXPECT_GT(run.per_healthy_replica(), 4 * run.per_gray_replica());
  EXPECT_LE(run.p50, run.p99);
  EXPECT_LE(run.p99, run.p999);
  EXPECT_LE(run.p999, 1s);  // nobody waits past the deadline
}

TEST(FleetScenarioTest, NoGrayReplicaNoWaste) {
  FleetScenarioOptions o = SmallFleet(GrayMode::kSlow);
  o.gray_fraction = 0;
  o.ejection = {false};
  for (const FleetRun& run : RunSmallFleet(o).runs) {
    EXPECT_EQ(run.gray_attempts, 0) << PickerKindName(run.picker);
    EXPECT_EQ(run.success_rate(), 1.0) << PickerKindName(run.picker);
  }
}

TEST(FleetScenarioTest, LimitsNameTheFlagToChange) {
  EXPECT_THAT(FleetScenarioOptions{}.Validate(), IsEmpty());
  const FleetScenarioOptions one_view_per_client{.client_groups = 10'000};
  EXPECT_THAT(one_view_per_client.Validate(),
              ElementsAre(StartsWith("client_groups: 10000 client groups x 1000 replicas makes 1e+07 endpoint "
                                     "objects (at most 1e+06)")));
  const FleetScenarioOptions endless{.requests = 100'000'000};
  EXPECT_THAT(endless.Validate(), Contains(StartsWith("requests: 1e+08 requests, up to 2 attempts each, in 8 runs")));
  EXPECT_THAT((FleetScenarioOptions{.clients = 10, .client_groups = 11}.Validate()),
              ElementsAre("client_groups: must be in [1, clients]"));
  FleetScenarioOptions negative_penalty;
  negative_penalty.load.failure_penalty = -1ms;
  EXPECT_THAT(negative_penalty.Validate(), Contains("load.failure_penalty: must be at least 0"));
  EXPECT_THAT(FleetScenarioOptions{.max_attempts = 9}.Validate(),
              ElementsAre(StartsWith("max_attempts: must be in [1, 8]")));
  EXPECT_THAT(FleetScenarioOptions{.rate = 1e7}.Validate(), Contains(StartsWith("rate: 1e+07 requests/s")));
  FleetScenarioOptions sweeping;
  sweeping.outlier.interval = 1ns;
  EXPECT_THAT(sweeping.Validate(), Contains(StartsWith("outlier.interval: sweeping 1e+05 endpoints")));
  const Result<FleetScenarioResult> refused = RunFleetScenario(one_view_per_client);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stormguard::sim
