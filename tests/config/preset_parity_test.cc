// The presets a program builds in code (pipeline/presets.h) and the JSON
// presets a configuration names are the same pipelines: the same stages with
// the same options, for the defaults and for parameters set away from them.
#include <gtest/gtest.h>

#include "stormguard/config/config_json.h"
#include "stormguard/config/preset.h"
#include "stormguard/pipeline/presets.h"
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

// A stage the code built, as the configuration would write it. Reading a
// stage's class back is a test's business only: the library never does.
StageConfig AsConfig(const Stage& stage) {
  const std::string_view kind = stage.placement().kind;
  if (const auto* r = dynamic_cast<const RetryStage*>(&stage)) {
    return StageConfig::Of("retry", RetryConfig{.options = r->policy().options()});
  }
  if (const auto* t = dynamic_cast<const TimeoutStage*>(&stage)) {
    return StageConfig::Of(kind, TimeoutConfig{.timeout = t->options()});
  }
  if (const auto* f = dynamic_cast<const FallbackStage*>(&stage)) return StageConfig::Of("fallback", f->options());
  // No options: circuit_breaker, and the key check (placed as "idempotency_key").
  return StageConfig::Of(kind == "idempotency_key" ? "require_idempotency_key" : kind);
}

// The destination {pipeline: stages, components} as ToJson writes it.
Json Written(std::vector<StageConfig> stages, DestinationConfig components) {
  Config c;
  components.pipeline.stages = std::move(stages);
  c.destinations.emplace("d", std::move(components));
  return Json::parse(ToJson(c))["destinations"]["d"];
}

Json FromCode(const PipelineBuilder& builder) {
  const Result<PipelineRef> p = builder.Build();
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (!p.ok()) return nullptr;
  std::vector<StageConfig> stages;
  DestinationConfig components;
  for (std::size_t i = 0; i < (*p)->size(); ++i) {
    const Stage& stage = (*p)->stage(i);
    stages.push_back(AsConfig(stage));
    if (const auto* b = dynamic_cast<const CircuitBreakerStage*>(&stage)) {
      components.circuit_breaker = b->breaker().options();
    }
  }
  return Written(std::move(stages), std::move(components));
}

Json FromData(const std::string& name, Json parameters) {
  const Result<PresetStages> s = ExpandPreset({.name = name, .parameters = std::move(parameters)});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return nullptr;
  return Written(s->stages, s->components);
}

TEST(PresetParityTest, UserFacing) {
  EXPECT_EQ(FromData("user_facing", Json::object()), FromCode(presets::UserFacing()));
  EXPECT_EQ(FromData("user_facing", {{"at_entry", false}}), FromCode(presets::UserFacing({.at_entry = false})));
  EXPECT_EQ(FromData("user_facing", {{"entry_timeout", "2s"}, {"max_attempts", 2}, {"idempotent", true}}),
            FromCode(presets::UserFacing({.entry_timeout = 2s, .max_attempts = 2, .idempotent = true})));
}

TEST(PresetParityTest, BackgroundJob) {
  EXPECT_EQ(FromData("background_job", Json::object()), FromCode(presets::BackgroundJob()));
  EXPECT_EQ(FromData("background_job", {{"attempt_timeout", "10s"}, {"max_attempts", 5}}),
            FromCode(presets::BackgroundJob({.attempt_timeout = 10s, .max_attempts = 5})));
}

TEST(PresetParityTest, ThirdPartyApiWithItsOwnBreaker) {
  EXPECT_EQ(FromData("third_party_api", Json::object()), FromCode(presets::ThirdPartyApi()));
  EXPECT_EQ(FromData("third_party_api", {{"attempt_timeout", "3s"}, {"max_attempts", 2}}),
            FromCode(presets::ThirdPartyApi({.attempt_timeout = 3s, .max_attempts = 2})));
}

TEST(PresetParityTest, PaymentAndHighFanOut) {
  EXPECT_EQ(FromData("payment", {{"promised_timeout", "3s"}}), FromCode(presets::Payment({.promised_timeout = 3s})));
  EXPECT_EQ(FromData("high_fan_out", {{"per_downstream_timeout", "80ms"}, {"skip_when_remaining_below", "20ms"}}),
            FromCode(presets::HighFanOut({.per_downstream_timeout = 80ms, .skip_when_remaining_below = 20ms})));
}

}  // namespace
}  // namespace stormguard::config
