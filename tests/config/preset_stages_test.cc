// A preset read back as the stages it builds, with every option.
#include "stormguard/config/preset_stages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;

std::vector<std::string_view> Kinds(const PresetStages& p) {
  std::vector<std::string_view> kinds;
  for (const StageConfig& s : p.stages) kinds.push_back(s.kind());
  return kinds;
}

TEST(PresetStagesTest, EveryPresetExpandsIntoStagesTheConfigCanHold) {
  for (PresetKind k : {PresetKind::kUserFacing, PresetKind::kBackgroundJob, PresetKind::kThirdPartyApi,
                       PresetKind::kPayment, PresetKind::kHighFanOut}) {
    PresetConfig p{.kind = k};
    p.payment.promised_timeout = 5s;  // the two required numbers
    p.high_fan_out.per_downstream_timeout = 100ms;
    const Result<PresetStages> s = ExpandPreset(p);
    ASSERT_TRUE(s.ok()) << PresetKindName(k) << ": " << s.status().ToString();
    EXPECT_FALSE(s->stages.empty()) << PresetKindName(k);
    std::vector<StagePlacement> placements;
    for (const StageConfig& stage : s->stages) placements.push_back(PlacementOf(stage));
    EXPECT_TRUE(CheckPlacements(placements).empty()) << PresetKindName(k);
  }
}

// The preset's own options flow into the stages it builds.
TEST(PresetStagesTest, UserFacingCarriesItsOptions) {
  const Result<PresetStages> s =
      ExpandPreset({.kind = PresetKind::kUserFacing, .user_facing = {.entry_timeout = 2s, .max_attempts = 2}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(Kinds(*s), ::testing::ElementsAre("timeout", "retry"));
  EXPECT_EQ(s->stages[0].options<TimeoutConfig>()->timeout.timeout, 2s);
  EXPECT_EQ(s->stages[1].options<RetryConfig>()->options.max_attempts, 2);
  EXPECT_EQ(s->stages[1].options<RetryConfig>()->options.backoff.cap, 2s);  // the preset caps its backoff at the entry budget
  EXPECT_FALSE(s->own_breaker);
}

TEST(PresetStagesTest, AMiddleHopOnlyCarriesTheDeadline) {
  const Result<PresetStages> s = ExpandPreset({.kind = PresetKind::kUserFacing, .user_facing = {.at_entry = false}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(Kinds(*s), ::testing::ElementsAre("timeout"));
  EXPECT_EQ(s->stages[0].options<TimeoutConfig>()->timeout.timeout, kInfiniteDuration);
}

TEST(PresetStagesTest, ThirdPartyApiReportsTheBreakerItMakes) {
  const Result<PresetStages> s = ExpandPreset({.kind = PresetKind::kThirdPartyApi});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(Kinds(*s), ::testing::ElementsAre("require_idempotency_key", "retry",
                                                "circuit_breaker", "attempt_timeout"));
  ASSERT_TRUE(s->own_breaker);
  EXPECT_EQ(s->own_breaker->window_size, CircuitBreakerOptions{}.window_size);
  EXPECT_EQ(s->own_breaker->wait_in_open, CircuitBreakerOptions{}.wait_in_open);
}

TEST(PresetStagesTest, AnInvalidPresetSaysWhy) {
  const Result<PresetStages> s = ExpandPreset({.kind = PresetKind::kPayment});  // no promised timeout
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stormguard::config
