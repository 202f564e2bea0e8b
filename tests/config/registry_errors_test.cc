// A configuration the registry cannot use changes nothing: every error is
// reported with its JSON path, counted, and the last good one stays.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "registry_test_util.h"
#include "stormguard/config/config_json.h"

namespace stormguard::config {
namespace {
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::Describe;
using testkit::RegistryEnv;

constexpr std::string_view kGood =
    R"({"destinations": {"inventory": {"pipeline": {"stages": [{"retry": {"max_attempts": 2}}]}}}})";

class RegistryErrorsTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};

  void SetUp() override { ASSERT_TRUE(registry.Apply(kGood, "good").ok()); }

  // Applies `text`, expects a rejection, and checks nothing changed.
  std::string Rejected(std::string_view text) {
    const Status s = registry.Apply(text, "bad");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    ExpectUnchanged();
    return s.message();
  }
  void ExpectUnchanged() {
    EXPECT_EQ(registry.version(), 1u);
    EXPECT_EQ(Describe(registry.Get("inventory")), "retry(2 attempts) -> call");
  }
};

TEST_F(RegistryErrorsTest, AParseErrorChangesNothingAndIsReported) {
  EXPECT_THAT(Rejected("{\"destinations\": "), HasSubstr("invalid config: "));
  const RegistryStats s = registry.Stats();
  EXPECT_EQ(s.accepted, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_FALSE(s.on_defaults);
  ASSERT_EQ(env.events.size(), 3u);
  EXPECT_EQ(env.events[1], "accepted v1 good");
  EXPECT_THAT(env.events[2], HasSubstr("rejected v1 bad: "));
}

TEST_F(RegistryErrorsTest, AValidationErrorNamesItsPath) {
  EXPECT_EQ(Rejected(R"({"destinations": {"inventory": {"pipeline": {"stages": [{"retry": {"max_attempts": 0}}]}}}})"),
            "invalid config: destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at least 1");
}

// The parser refuses this in a file; a Config built in code reaches the registry.
TEST_F(RegistryErrorsTest, EveryStageNamingAComponentTheDestinationLacks) {
  Config c;
  c.destinations["a"].pipeline.stages = {StageConfig::Of("retry"), StageConfig::Of("circuit_breaker"),
                                         StageConfig::Of("bulkhead")};
  c.destinations["b"].pipeline.stages = {StageConfig::Of("rate_limiter"), StageConfig::Of("adaptive_concurrency")};
  const Status s = registry.Apply(c, "code");
  const std::string kLacks = " names the destination's shared component, which the destination does not configure";
  EXPECT_EQ(s.message(), "invalid config: destinations.a.pipeline.stages[1]: circuit_breaker" + kLacks +
                             "; destinations.a.pipeline.stages[2]: bulkhead" + kLacks +
                             "; destinations.b.pipeline.stages[0]: rate_limiter" + kLacks +
                             "; destinations.b.pipeline.stages[1]: adaptive_concurrency" + kLacks);
  ExpectUnchanged();
}

TEST_F(RegistryErrorsTest, AStageOrderThePipelineBuilderRefuses) {
  // Read from a file, the parser refuses the order before the registry builds.
  EXPECT_EQ(Rejected(R"({"destinations": {"inventory": {"pipeline": {"stages": [
                 {"attempt_timeout": {"timeout": "1s"}}, {"retry": {}}]}}}})"),
            "invalid config: destinations.inventory.pipeline.stages[0]: outside retry (stages[1]) it bounds all "
            "attempts together; add it after AddRetry, or use AddTimeout");
  // Built in code, the registry's own build refuses it, naming the same stage.
  Config c;
  c.destinations["inventory"].pipeline.stages = {StageConfig::Of("attempt_timeout"), StageConfig::Of("retry")};
  c.destinations["inventory"].pipeline.stages[0].options<TimeoutConfig>()->timeout.timeout = std::chrono::seconds(1);
  const Status s = registry.Apply(c, "code");
  EXPECT_EQ(s.message(),
            "invalid config: destinations.inventory.pipeline: stages[0] (attempt_timeout): outside retry "
            "(stages[1]) it bounds all attempts together; add it after AddRetry, or use AddTimeout");
  ExpectUnchanged();
}

TEST_F(RegistryErrorsTest, AMethodCannotChangeAPreset) {
  EXPECT_EQ(Rejected(R"({"destinations": {"inventory": {"pipeline": {"background_job": {}},
                 "methods": {"GET /x": {"timeout": "1s"}}}}})"),
            "invalid config: destinations.inventory.methods[\"GET /x\"]: the destination's pipeline is the preset "
            "background_job, which a method entry cannot change; list the pipeline's stages instead");
}

TEST_F(RegistryErrorsTest, AComponentThatCannotBeCreatedNamesItsPath) {
  Config c;
  c.destinations["inventory"].bulkhead = BulkheadOptions{.max_concurrent = 0};
  const Status s = registry.Apply(c, "code");
  EXPECT_THAT(s.message(), HasSubstr("invalid config: destinations.inventory.bulkhead: "));
  EXPECT_THAT(s.message(), HasSubstr("max_concurrent"));
  ExpectUnchanged();
}

TEST_F(RegistryErrorsTest, AHedgeLatencyTrackerThatCannotBeCreatedNamesItsPath) {
  Config c;
  StageConfig hedge = StageConfig::Of("hedge");
  hedge.options<HedgeConfig>()->latency = LatencyTrackerOptions{.slices = 0};
  c.destinations["inventory"].pipeline.stages = {StageConfig::Of("retry"), hedge};
  const Status s = registry.Apply(c, "code");
  EXPECT_THAT(s.message(), HasSubstr("invalid config: destinations.inventory.pipeline.stages[1].latency: "));
  ExpectUnchanged();
}

TEST_F(RegistryErrorsTest, ARejectedSourceChangesNothingAndIsReported) {
  registry.Reject(Status::Unavailable("etcd 127.0.0.1:2379: connection refused"), "etcd:/app/config");
  ExpectUnchanged();
  EXPECT_EQ(registry.Stats().rejected, 1u);
  EXPECT_EQ(env.events.back(), "rejected v1 etcd:/app/config: UNAVAILABLE: etcd 127.0.0.1:2379: connection refused");
}

TEST(RegistryStartTest, WithoutAnyGoodConfigTheRegistryStaysOnDefaultsAndSaysSo) {
  RegistryEnv env;
  Registry registry(env.Options());
  registry.Reject(Status::Unavailable("unreachable"), "etcd");
  EXPECT_FALSE(registry.Apply("not json", "file").ok());
  EXPECT_TRUE(registry.on_defaults());
  EXPECT_EQ(registry.Stats().rejected, 2u);
  ASSERT_EQ(env.events.size(), 3u);
  EXPECT_EQ(env.events[1], "rejected v0 defaults etcd: UNAVAILABLE: unreachable");
  EXPECT_THAT(env.events[2], HasSubstr("rejected v0 defaults file: "));
  EXPECT_EQ(Describe(registry.Get("inventory")), "retry(3 attempts, budget token_bucket) -> call");
  ASSERT_TRUE(registry.Apply(R"({"destinations": {}})", "file").ok());
  EXPECT_FALSE(registry.on_defaults());
  EXPECT_EQ(env.events.back(), "accepted v1 file");
}

}  // namespace
}  // namespace stormguard::config
