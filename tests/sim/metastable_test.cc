#include "stormguard/sim/metastable.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

MetastableRun RunOne(Control c, MetastableOptions o = {}) {
  o.controls = {c};
  auto r = RunMetastable(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r->runs.at(0);
}

// HotOS'21: the trigger goes away, the failure stays, sustained by retries.
TEST(MetastableTest, WithoutControlsTheServiceStaysDownAfterTheTrigger) {
  const MetastableRun r = RunOne(Control::kNone);
  EXPECT_GT(r.goodput_before, 0.99);
  EXPECT_LT(r.goodput_during, 0.2);
  EXPECT_LT(r.goodput_after, 0.05);
  EXPECT_FALSE(r.recovery.has_value());
  EXPECT_GT(r.amplification, 5);  // retries, not clients, fill the queue
}

TEST(MetastableTest, WithoutTheTriggerNothingFails) {
  const MetastableRun r = RunOne(Control::kNone, {.drop = 0.0});
  EXPECT_GT(r.goodput_before, 0.99);
  EXPECT_GT(r.goodput_during, 0.99);
  EXPECT_GT(r.goodput_after, 0.99);
  EXPECT_EQ(r.recovery, Duration::zero());
}

TEST(MetastableTest, ABreakerAloneLetsTheServiceRecover) {
  const MetastableRun r = RunOne(Control::kBreaker);
  EXPECT_GT(r.goodput_after, 0.8);
  ASSERT_TRUE(r.recovery.has_value());
  EXPECT_LE(*r.recovery, 15s);
}

TEST(MetastableTest, InvalidOptionsNameTheField) {
  auto r = RunMetastable({.trigger_at = 50s, .trigger_for = 20s, .duration = 60s});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("duration"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::sim

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

TEST(MetastableControlsTest, WithAllControlsTheServiceRecoversWhenCapacityReturns) {
  const MetastableRun r = RunOne(Control::kAll);
  EXPECT_GT(r.goodput_before, 0.99);
  EXPECT_GT(r.goodput_after, 0.95);
  ASSERT_TRUE(r.recovery.has_value());
  EXPECT_LE(*r.recovery, 3s);
  EXPECT_LE(r.amplification, 1.1);
}

TEST(MetastableControlsTest, RecoversOnEverySeedWhileNoControlNeverDoes) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const MetastableRun all = RunOne(Control::kAll, {.seed = seed});
    const MetastableRun none = RunOne(Control::kNone, {.seed = seed});
    EXPECT_TRUE(all.recovery.has_value()) << seed;
    EXPECT_FALSE(none.recovery.has_value()) << seed;
  }
}

}  // namespace
}  // namespace stormguard::sim
