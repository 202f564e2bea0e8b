// The per-attempt timeout's "adaptive" object: read, written back, checked
// at its JSON path, and built with the hedge's tracker when there is one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config_test_util.h"
#include "registry_test_util.h"
#include "stormguard/pipeline/stages/hedge_stage.h"
#include "stormguard/pipeline/stages/timeout_stage.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::HasSubstr;
using testkit::ErrorsOf;
using testkit::Inventory;

constexpr std::string_view kAdaptive = R"({"destinations": {"inventory": {"pipeline": {"stages": [
  {"retry": {"max_attempts": 2}},
  {"attempt_timeout": {"timeout": "1s", "abandon_after": "10ms", "adaptive": {
    "quantile": 0.99, "factor": 1.5, "min": "5ms", "max": "250ms", "warmup": "200ms", "refresh": "50ms",
    "latency": {"window": "5s", "slices": 4, "min_samples": 30}}}}]}}}})";

TEST(ConfigAdaptiveTimeoutTest, EveryFieldReadsAndWritesBackUnchanged) {
  const ParsedConfig parsed = ParseConfigText(kAdaptive);
  ASSERT_THAT(parsed.errors, ::testing::IsEmpty());
  const auto stage = [](const nlohmann::json& j) { return j["destinations"]["inventory"]["pipeline"]["stages"][1]; };
  EXPECT_EQ(stage(nlohmann::json::parse(ToJson(parsed.config))), stage(nlohmann::json::parse(kAdaptive)));
  const TimeoutConfig& s = *parsed.config.destinations.at("inventory").pipeline.stages[1].options<TimeoutConfig>();
  ASSERT_TRUE(s.adaptive.has_value());
  EXPECT_EQ(s.adaptive->options.quantile, 0.99);
  EXPECT_EQ(s.adaptive->options.factor, 1.5);
  EXPECT_EQ(s.adaptive->options.min, 5ms);
  EXPECT_EQ(s.adaptive->options.max, 250ms);
  EXPECT_EQ(s.adaptive->options.warmup, 200ms);
  EXPECT_EQ(s.adaptive->options.refresh, 50ms);
  ASSERT_TRUE(s.adaptive->latency.has_value());
  EXPECT_EQ(s.adaptive->latency->min_samples, 30);
}

TEST(ConfigAdaptiveTimeoutTest, EachBadValueNamesItsPath) {
  const std::string stage = "destinations.inventory.pipeline.stages[1].attempt_timeout.adaptive";
  auto errors_of = [](std::string_view adaptive) {
    return ErrorsOf(Inventory(R"({"pipeline": {"stages": [{"retry": {}}, {"attempt_timeout": {"adaptive": )" +
                              std::string(adaptive) + "}}]}}"));
  };
  EXPECT_THAT(errors_of(R"({"quantile": 1.5})"), Contains(stage + ".quantile: must be in (0, 1], got 1.5"));
  EXPECT_THAT(errors_of(R"({"quantile": 0})"), Contains(stage + ".quantile: must be in (0, 1], got 0"));
  EXPECT_THAT(errors_of(R"({"factor": 0.5})"), Contains(HasSubstr(stage + ".factor: must be a finite number >= 1")));
  EXPECT_THAT(errors_of(R"({"min": "0s"})"), Contains(stage + ".min: must be positive"));
  EXPECT_THAT(errors_of(R"({"min": "1s", "max": "10ms"})"), Contains(stage + ".max: must be at least min"));
  EXPECT_THAT(errors_of(R"({"warmup": "0s"})"), Contains(stage + ".warmup: must be positive"));
  EXPECT_THAT(errors_of(R"({"refresh": "-1ms"})"), Contains(HasSubstr(stage + ".refresh")));
  EXPECT_THAT(errors_of(R"({"latency": {"slices": 1}})"),
              Contains(stage + ".latency.slices: must be between 2 and 64"));
  EXPECT_THAT(errors_of(R"({"quantil": 0.9})"), Contains(HasSubstr(stage + ".quantil")));
  EXPECT_THAT(errors_of(R"("fast")"), Contains(HasSubstr(stage + ": must be an object")));
}

TEST(ConfigAdaptiveTimeoutTest, TheOverallTimeoutDoesNotAdapt) {
  EXPECT_THAT(ErrorsOf(Inventory(R"({"pipeline": {"stages": [{"timeout": {"adaptive": {}}}]}})")),
              Contains(HasSubstr("destinations.inventory.pipeline.stages[0].timeout.adaptive: only attempt_timeout "
                                 "follows latency")));
}

const TimeoutStage& AttemptTimeoutOf(const Pipeline& p) {
  for (std::size_t i = 0;; ++i) {
    if (p.stage(i).name() == "attempt_timeout") return dynamic_cast<const TimeoutStage&>(p.stage(i));
  }
}

TEST(ConfigAdaptiveTimeoutTest, BuildsAnAdaptiveAttemptTimeoutWithItsOwnTracker) {
  testkit::RegistryEnv env;
  Registry registry(env.Options());
  ASSERT_TRUE(registry.Apply(kAdaptive, "test").ok());
  const PipelineRef p = registry.Get("inventory");
  EXPECT_THAT(testkit::Describe(p), HasSubstr("attempt_timeout(adaptive q0.99 x1.5 in [5ms, 250ms])"));
  const AdaptiveTimeout* a = AttemptTimeoutOf(*p).options().adaptive.get();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->latency().options().min_samples, 30);
  EXPECT_TRUE(a->options().record_successes);                           // its own tracker: nobody else records
  EXPECT_EQ(a->TimeoutFor(env.clock.Now(), kInfiniteDuration), 200ms);  // warm-up
}

// With a hedge that follows latency, the adaptive timeout reads (and feeds)
// the same tracker, whichever of the two is outside.
TEST(ConfigAdaptiveTimeoutTest, SharesTheHedgesTrackerWhenItHasNoneOfItsOwn) {
  for (const bool timeout_inside : {true, false}) {
    const std::string hedge = R"({"hedge": {"idempotent": true, "latency": {"min_samples": 7}}})";
    const std::string timeout = R"({"attempt_timeout": {"adaptive": {"max": "300ms"}}})";
    const std::string stages = timeout_inside ? hedge + ", " + timeout : timeout + ", " + hedge;
    testkit::RegistryEnv env;
    Registry registry(env.Options());
    const Status s = registry.Apply(Inventory(R"({"pipeline": {"stages": [{"retry": {}}, )" + stages + "]}}"), "t");
    ASSERT_TRUE(s.ok()) << s.ToString();
    const PipelineRef p = registry.Get("inventory");
    const HedgeStage& h = dynamic_cast<const HedgeStage&>(p->stage(timeout_inside ? 1 : 2));
    const AdaptiveTimeout* a = AttemptTimeoutOf(*p).options().adaptive.get();
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(&a->latency(), h.policy().latency()) << timeout_inside;
    EXPECT_EQ(a->latency().options().min_samples, 7);
    EXPECT_FALSE(a->options().record_successes) << "the hedge records them; both would count each twice";
  }
}

}  // namespace
}  // namespace stormguard::config
