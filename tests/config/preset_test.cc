// Presets as data: the library's JSON presets expand into stages, a program
// registers its own, and every problem names the field it comes from.
#include "stormguard/config/preset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "stormguard/config/config_json.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string_view> Kinds(const PresetStages& p) {
  std::vector<std::string_view> kinds;
  for (const StageConfig& s : p.stages) kinds.push_back(s.kind());
  return kinds;
}

PresetStages Expanded(std::string name, nlohmann::json parameters = nlohmann::json::object()) {
  Result<PresetStages> s = ExpandPreset({.name = std::move(name), .parameters = std::move(parameters)});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : PresetStages{};
}

TEST(PresetTest, TheLibraryShipsFivePresetsThatExpandIntoValidStages) {
  EXPECT_THAT(PresetNames(),
              testing::IsSupersetOf({"user_facing", "background_job", "third_party_api", "payment", "high_fan_out"}));
  const nlohmann::json required = {{"payment", {{"promised_timeout", "5s"}}},
                                   {"high_fan_out", {{"per_downstream_timeout", "100ms"}}}};
  for (const std::string name : {"user_facing", "background_job", "third_party_api", "payment", "high_fan_out"}) {
    const PresetStages s = Expanded(name, required.value(name, nlohmann::json::object()));
    EXPECT_FALSE(s.stages.empty()) << name;
    std::vector<StagePlacement> placements;
    for (const StageConfig& stage : s.stages) placements.push_back(PlacementOf(stage));
    EXPECT_TRUE(CheckPlacements(placements).empty()) << name;
  }
}

TEST(PresetTest, ParametersFlowIntoEveryPlaceTheyAreUsed) {
  const PresetStages s = Expanded("user_facing", {{"entry_timeout", "2s"}, {"max_attempts", 2}});
  EXPECT_THAT(Kinds(s), ElementsAre("timeout", "retry"));
  EXPECT_EQ(s.stages[0].options<TimeoutConfig>()->timeout.timeout, 2s);
  EXPECT_EQ(s.stages[1].options<RetryConfig>()->options.max_attempts, 2);
  EXPECT_EQ(s.stages[1].options<RetryConfig>()->options.backoff.cap, 2s);  // capped at the entry budget
  EXPECT_FALSE(s.components.circuit_breaker);
}

TEST(PresetTest, AFlagParameterChoosesStages) {
  const PresetStages s = Expanded("user_facing", {{"at_entry", false}});
  EXPECT_THAT(Kinds(s), ElementsAre("timeout"));
  EXPECT_EQ(s.stages[0].options<TimeoutConfig>()->timeout.timeout, kInfiniteDuration);
}

TEST(PresetTest, APresetBringsTheComponentsItsStagesNeed) {
  const PresetStages s = Expanded("third_party_api");
  EXPECT_THAT(Kinds(s), ElementsAre("require_idempotency_key", "retry", "circuit_breaker", "attempt_timeout"));
  ASSERT_TRUE(s.components.circuit_breaker);
  EXPECT_EQ(s.components.circuit_breaker->window_size, CircuitBreakerOptions{}.window_size);

  DestinationConfig own;
  own.circuit_breaker = CircuitBreakerOptions{.window_size = 7};
  EXPECT_TRUE(AddPresetComponents(own, s).empty());  // the destination's own wins
  EXPECT_EQ(own.circuit_breaker->window_size, 7);
  DestinationConfig none;
  EXPECT_THAT(AddPresetComponents(none, s), ElementsAre("circuit_breaker"));
}

TEST(PresetTest, AnErrorNamesTheParameterItCameFrom) {
  const Result<PresetStages> s = ExpandPreset({.name = "payment"});  // no promised timeout
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("payment.promised_timeout: must be positive"));
  EXPECT_EQ(ExpandPreset({.name = "canary"}).status().code(), StatusCode::kNotFound);
}

TEST(PresetTest, ConfigurationErrorsNameTheParameter) {
  const auto errors = [](std::string_view pipeline) {
    return ParseConfigText(R"({"destinations": {"d": {"pipeline": )" + std::string(pipeline) + "}}}").errors;
  };
  EXPECT_THAT(errors(R"({"user_facing": {"entry_timeout": "0s"}})"),
              Contains("destinations.d.pipeline.user_facing.entry_timeout: must be positive"));
  EXPECT_THAT(errors(R"({"user_facing": {"at_entry": "yes"}})"),
              ElementsAre("destinations.d.pipeline.user_facing.at_entry: must be true or false"));
  EXPECT_THAT(errors(R"({"user_facing": {"retries": 2}})"),
              ElementsAre(HasSubstr("destinations.d.pipeline.user_facing.retries: unknown field (user_facing's "
                                    "parameters: at_entry, entry_timeout, idempotent, max_attempts)")));
  EXPECT_THAT(errors(R"({"background_job": {"max_attempts": 2.5}})"),
              ElementsAre(HasSubstr("destinations.d.pipeline.background_job.max_attempts: must be an integer")));
  // A value no parameter gave: the preset's own field, by its path in the preset.
  EXPECT_THAT(errors(R"({"user_facing": {"entry_timeout": "50ms"}})"),
              ElementsAre(HasSubstr("destinations.d.pipeline.user_facing")));
}

TEST(PresetTest, AMalformedPresetIsRefusedNamingTheField) {
  const auto refused = [](std::string_view text) { return RegisterPreset(text).message(); };
  EXPECT_THAT(refused("{"), HasSubstr("not valid JSON"));
  EXPECT_THAT(refused(R"({"name": "Bad Name", "stages": []})"), HasSubstr("name: must be 1 to 64 of [a-z0-9_]"));
  EXPECT_THAT(refused(R"({"name": "stages", "stages": []})"), HasSubstr("and not \"stages\""));
  EXPECT_THAT(refused(R"({"name": "p1", "stages": [{"retry": {"max_attempts": "$n"}}]})"),
              HasSubstr("p1.stages[0].retry.max_attempts: \"$n\" names no parameter"));
  EXPECT_THAT(refused(R"({"name": "p2", "parameters": {"n": 3}, "stages": [{"when": "n", "stage": "bulkhead"}]})"),
              HasSubstr("p2.stages[0].when: must name a boolean parameter"));
  EXPECT_THAT(refused(R"({"name": "p3", "parameters": {"n": [1]}, "stages": []})"),
              HasSubstr("p3.parameters.n: a default must be a boolean, a number or a string"));
  EXPECT_THAT(refused(R"({"name": "p4", "stages": [], "extra": 1})"), HasSubstr("p4.extra: unknown field"));
  EXPECT_THAT(refused(R"({"name": "user_facing", "stages": []})"), HasSubstr("a preset of that name is registered"));
}

}  // namespace
}  // namespace stormguard::config
