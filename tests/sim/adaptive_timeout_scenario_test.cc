#include "stormguard/sim/adaptive_timeout_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

AdaptiveTimeoutScenarioResult RunScenario(AdaptiveTimeoutScenarioOptions o) {
  Result<AdaptiveTimeoutScenarioResult> r = RunAdaptiveTimeoutScenario(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

// The fixed timeout, tuned for 10 ms answers, times out every 300 ms one and
// retries it: the storm. The adaptive one rises with the latency.
TEST(AdaptiveTimeoutScenarioTest, FixedFeedsAStormAdaptiveRisesAndKeepsSuccess) {
  const AdaptiveTimeoutScenarioResult r = RunScenario({});
  ASSERT_EQ(r.modes.size(), 2u);
  const ModeResult& fixed = r.modes[0];
  const ModeResult& adaptive = r.modes[1];
  ASSERT_EQ(fixed.phases.size(), 3u);
  for (const ModeResult* m : {&fixed, &adaptive}) {
    EXPECT_EQ(m->phases[0].success_rate(), 1.0) << m->name;  // healthy
    EXPECT_EQ(m->phases[2].success_rate(), 1.0) << m->name;  // recovered
    EXPECT_LT(m->phases[0].attempts_per_call(), 1.01) << m->name;
  }
  EXPECT_LT(fixed.phases[1].success_rate(), 0.05);
  EXPECT_GT(fixed.phases[1].attempts_per_call(), 2.9);  // every call makes all 3 attempts
  EXPECT_GT(fixed.phases[1].timeouts, 2 * fixed.phases[1].calls);
  EXPECT_GT(adaptive.phases[1].success_rate(), 0.95);
  EXPECT_LT(adaptive.phases[1].attempts_per_call(), 1.2);
  EXPECT_LT(adaptive.phases[1].timeouts, fixed.phases[1].timeouts / 10);
  // It rose to cover 300 ms answers and never passed max.
  EXPECT_GE(adaptive.phases[1].max_timeout, 600ms);
  for (Duration t : adaptive.timeout_samples) EXPECT_LE(t, r.options.adaptive.max);
  EXPECT_EQ(adaptive.timeout_samples.size(), 30u);
  for (Duration t : fixed.timeout_samples) EXPECT_EQ(t, 50ms);
}

// Once the latency is back, the timeout comes back down within 5 s, long
// before the slow samples leave the 10 s window; the climb above stays.
TEST(AdaptiveTimeoutScenarioTest, TheTimeoutComesBackWithinTwiceHealthyWithinFiveSeconds) {
  const AdaptiveTimeoutScenarioResult r = RunScenario({});
  const ModeResult& adaptive = r.modes[1];
  const std::optional<Duration> back = BackWithinTwiceHealthy(adaptive, r.options);
  ASSERT_TRUE(back.has_value());
  EXPECT_LE(*back, 5s);
  EXPECT_GE(adaptive.phases[1].max_timeout, 600ms);
  EXPECT_EQ(BackWithinTwiceHealthy(r.modes[0], r.options), 0s) << "the fixed one never left";
}

TEST(AdaptiveTimeoutScenarioTest, TheSameSeedGivesTheSameRun) {
  const AdaptiveTimeoutScenarioOptions o{.phase = 2s, .seed = 7};
  const AdaptiveTimeoutScenarioResult a = RunScenario(o);
  const AdaptiveTimeoutScenarioResult b = RunScenario(o);
  for (std::size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(a.modes[m].timeout_samples, b.modes[m].timeout_samples);
    for (std::size_t p = 0; p < 3; ++p) {
      EXPECT_EQ(a.modes[m].phases[p].succeeded, b.modes[m].phases[p].succeeded);
      EXPECT_EQ(a.modes[m].phases[p].attempts, b.modes[m].phases[p].attempts);
      EXPECT_EQ(a.modes[m].phases[p].p99, b.modes[m].phases[p].p99);
    }
  }
}

TEST(AdaptiveTimeoutScenarioTest, BadOptionsNameTheirField) {
  AdaptiveTimeoutScenarioOptions o;
  o.rate = std::numeric_limits<double>::quiet_NaN();
  o.max_attempts = 0;
  o.adaptive.factor = 0.5;
  const Status s = RunAdaptiveTimeoutScenario(o).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rate: must be in (0, 1e6]"));
  EXPECT_THAT(s.message(), HasSubstr("max_attempts: must be in [1, 10]"));
  EXPECT_THAT(s.message(), HasSubstr("adaptive.factor: must be a finite number >= 1"));
  const Status big = RunAdaptiveTimeoutScenario({.rate = 1e6, .phase = std::chrono::hours(1)}).status();
  EXPECT_THAT(big.message(), HasSubstr("phase: "));
}

}  // namespace
}  // namespace stormguard::sim
