// The fleet-wide limit on virtual time: the limit held while the store
// answers, the shares following a shift, the fallback when it is gone.
#include "stormguard/sim/fleet_limit_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::StartsWith;

const FleetLimitPhase& PhaseNamed(const FleetLimitScenarioResult& r, const std::string& name) {
  for (const FleetLimitPhase& p : r.phases) {
    if (p.name == name) return p;
  }
  ADD_FAILURE() << "no phase " << name;
  return r.phases.front();
}

FleetLimitScenarioResult RunDefault() {
  Result<FleetLimitScenarioResult> r = RunFleetLimitScenario({});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

TEST(FleetLimitScenarioTest, TheFleetHoldsItsLimitAndSharesFollowAShiftWithinThreeSeconds) {
  const FleetLimitScenarioResult r = RunDefault();
  ASSERT_EQ(r.phases.size(), 5u);
  for (const char* name : {"steady", "shift"}) {
    const FleetLimitPhase& p = PhaseNamed(r, name);
    EXPECT_LE(p.max_per_s, 1.05 * r.options.limit) << name;
    ASSERT_TRUE(p.settled.has_value()) << name;
    EXPECT_LE(*p.settled, 3s) << name;
  }
  // Every whole second once the shares settled, within 5% of the limit.
  for (std::size_t s : {2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 16, 17, 18, 19}) {
    EXPECT_NEAR(r.admitted_timeline[s], r.options.limit, 0.05 * r.options.limit) << "second " << s;
  }
  const FleetLimitPhase& shift = PhaseNamed(r, "shift");
  EXPECT_GT(shift.admitted.front(), 2 * shift.admitted.back());  // instance 0 now wants the most
}

TEST(FleetLimitScenarioTest, WithTheStoreDownEachInstanceFallsBackToItsStaticShare) {
  const FleetLimitScenarioResult r = RunDefault();
  const FleetLimitPhase& down = PhaseNamed(r, "store down");
  EXPECT_GE(down.min_per_s, 0.5 * r.options.limit);
  EXPECT_LE(down.max_per_s, 1.1 * r.options.limit);
  EXPECT_EQ(down.leases_expired, r.options.instances);
  EXPECT_GT(down.refresh_failures, 0);
  ASSERT_TRUE(down.settled.has_value());
  EXPECT_LE(*down.settled, r.options.lease_length + r.options.refresh_interval);  // the lease held until it expired
}

TEST(FleetLimitScenarioTest, AStoreBackEmptyConvergesAgain) {
  const FleetLimitScenarioResult r = RunDefault();
  const FleetLimitPhase& back = PhaseNamed(r, "back empty");
  ASSERT_TRUE(back.settled.has_value());
  EXPECT_LE(*back.settled, 3s);
  EXPECT_NEAR(back.admitted_per_s, r.options.limit, 0.05 * r.options.limit);
}

// Half the fleet cut off spends its static shares; the store keeps them
// out of the others' shares, so the fleet stays at its limit.
TEST(FleetLimitScenarioTest, APartitionedHalfDoesNotPushTheFleetPastItsLimit) {
  const FleetLimitScenarioResult r = RunDefault();
  const FleetLimitPhase& cut = PhaseNamed(r, "partition");
  EXPECT_LE(cut.max_per_s, 1.05 * r.options.limit);
  EXPECT_NEAR(cut.admitted_per_s, r.options.limit, 0.05 * r.options.limit);
  ASSERT_TRUE(cut.settled.has_value());
  EXPECT_LE(*cut.settled, r.options.lease_length + r.options.refresh_interval);
}

TEST(FleetLimitScenarioTest, TheSameSeedGivesTheSameRun) {
  const FleetLimitScenarioResult a = RunDefault(), b = RunDefault();
  EXPECT_EQ(a.admitted_timeline, b.admitted_timeline);
  FleetLimitScenarioOptions other;
  other.seed = 2;
  EXPECT_NE(RunFleetLimitScenario(other)->admitted_timeline, a.admitted_timeline);
}

TEST(FleetLimitScenarioTest, BadOptionsNameTheirField) {
  FleetLimitScenarioOptions o{.limit = std::nan(""), .instances = 0, .phase = 1500ms, .partitioned = 9};
  EXPECT_THAT(o.Validate(), Contains(StartsWith("limit: ")));
  EXPECT_THAT(o.Validate(), Contains(StartsWith("instances: ")));
  EXPECT_THAT(o.Validate(), Contains(StartsWith("phase: ")));
  EXPECT_THAT(o.Validate(), Contains(StartsWith("partitioned: ")));
  EXPECT_THAT((FleetLimitScenarioOptions{.demand = 1e6, .phase = 1h}.Validate()),
              Contains(StartsWith("demand: 1e+06 calls/s over 1.8e+04s, makes 1.8e+10 calls")));
  EXPECT_THAT((FleetLimitScenarioOptions{.instances = 1000, .phase = 1h}.Validate()),
              Contains(StartsWith("phase: 1e+03 instances sampled every 100ms")));
  const Result<FleetLimitScenarioResult> refused = RunFleetLimitScenario({.refresh_interval = 10s, .lease_length = 5s});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), ::testing::HasSubstr("lease_length"));
}

}  // namespace
}  // namespace stormguard::sim
