// Every kind of refused reload leaves the previous configuration in force:
// the registry hands out the very same pipeline, with its options and the
// state of its components (a spent budget stays spent), and the refusal is
// returned, counted and reported. Each refused document would change the
// pipeline if it were applied, even in part, so a refusal that fell
// through to the build or the swap fails here on a check, not a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "registry_test_util.h"

namespace stormguard::config {
namespace {
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testkit::Call;
using testkit::Describe;
using testkit::RegistryEnv;

// One token, never refilled: the first failing call retries once, later ones never.
constexpr std::string_view kAcceptedDoc = R"({"destinations": {"inventory": {
    "retry_budget": {"token_bucket": {"max_tokens": 1, "token_ratio": 0}},
    "pipeline": {"stages": [{"retry": {"max_attempts": 2}}]}}}})";

// kAcceptedDoc with `attempts` and a fresh budget of 5 tokens, plus `extra` in the retry.
std::string Changed(const std::string& extra, const std::string& attempts = "4") {
  return R"({"destinations": {"inventory": {
      "retry_budget": {"token_bucket": {"max_tokens": 5, "token_ratio": 0}},
      "pipeline": {"stages": [{"retry": {"max_attempts": )" +
         attempts + extra + "}}]}}}}";
}

class RegistryRefusalTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};
  PipelineRef before;

  void SetUp() override {
    ASSERT_TRUE(registry.Apply(kAcceptedDoc, "good").ok());
    before = registry.Get("inventory");
    ASSERT_EQ(FailingAttempts(), 2);  // spends the one token
  }

  int FailingAttempts() {
    int calls = 0;
    (void)Call(*registry.Get("inventory"), Status::Unavailable("down"), &calls);
    return calls;
  }

  // The refusal was reported, and everything is as SetUp left it. The
  // version comes first: a refusal that swapped in a broken configuration
  // stops the test here, before a call could use it.
  void ExpectStillInForce(const std::string& error) {
    ASSERT_EQ(registry.version(), 1u) << "the refused configuration was applied";
    const RegistryStats stats = registry.Stats();
    EXPECT_EQ(stats.accepted, 1u);
    EXPECT_EQ(stats.rejected, 1u);
    EXPECT_FALSE(stats.on_defaults);
    ASSERT_EQ(env.events.size(), 3u);  // the built-in default, good, bad
    EXPECT_THAT(env.events.back(), StartsWith("rejected v1 bad: "));
    EXPECT_THAT(env.events.back(), HasSubstr(error));
    EXPECT_EQ(registry.Get("inventory"), before) << "not the pipeline in force before";
    EXPECT_EQ(Describe(registry.Get("inventory")), "retry(2 attempts, budget token_bucket) -> call");
    EXPECT_EQ(FailingAttempts(), 1) << "the budget in force is not the spent one";
  }

  void ExpectRefused(std::string_view text, const std::string& error) {
    const Status s = registry.Apply(text, "bad");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), StartsWith("invalid config: "));
    EXPECT_THAT(s.message(), HasSubstr(error));
    ExpectStillInForce(error);
  }
};

TEST_F(RegistryRefusalTest, TextThatIsNotJson) { ExpectRefused(Changed("").substr(0, 40), ""); }

TEST_F(RegistryRefusalTest, AnUnknownKeyTheBuildWouldIgnore) {
  ExpectRefused(Changed(R"(, "bakcoff": {})"), "destinations.inventory.pipeline.stages[0].retry.bakcoff: unknown");
}

TEST_F(RegistryRefusalTest, AKeyGivenTwice) { ExpectRefused(Changed(R"(, "max_attempts": 4)"), "max_attempts"); }

// The build would refuse it too: applied twice, it would be counted twice.
TEST_F(RegistryRefusalTest, AValueOutOfRange) {
  ExpectRefused(Changed("", "2147483647"),
                "destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at most 1000");
}

// Read into the destination "default": applied, it would leave "inventory"
// on the built-in default.
TEST_F(RegistryRefusalTest, AGrpcServiceConfigWithAnError) {
  ExpectRefused(R"({"retryThrottling": {"maxTokens": 1000.5, "tokenRatio": 0.1}})",
                "retryThrottling.maxTokens: must be at most 1000");
}

TEST_F(RegistryRefusalTest, AConfigurationTheBuildRefuses) {
  Config c;
  c.destinations["inventory"].retry_budget = TokenBucketBudgetOptions{.max_tokens = 5, .token_ratio = 0};
  c.destinations["inventory"].pipeline.stages = {StageConfig::Of("retry")};
  c.destinations["inventory"].bulkhead = BulkheadOptions{.max_concurrent = 0};
  const Status s = registry.Apply(c, "bad");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("destinations.inventory.bulkhead: "));
  ExpectStillInForce("destinations.inventory.bulkhead: ");
}

// The fixture's registry was not told it may take chaos from configuration.
TEST_F(RegistryRefusalTest, AChaosStageTheProcessDidNotAllow) {
  ExpectRefused(R"({"destinations": {"inventory": {
                    "retry_budget": {"token_bucket": {"max_tokens": 5, "token_ratio": 0}},
                    "pipeline": {"stages": [{"retry": {"max_attempts": 4}},
                                            {"chaos": {"kind": "error", "rate": 1, "enabled": true}}]}}}})",
                "destinations.inventory.pipeline.stages[1]: chaos from configuration is not allowed in this "
                "process (RegistryOptions::allow_chaos)");
}

TEST_F(RegistryRefusalTest, ASourceThatCouldNotReadOne) {
  registry.Reject(Status::Unavailable("connection refused"), "bad");
  ExpectStillInForce("UNAVAILABLE: connection refused");
}

}  // namespace
}  // namespace stormguard::config
