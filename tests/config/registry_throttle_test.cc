// "adaptive_throttle" from configuration: read and shown back, refused with
// its path, and kept (window and all) across a reload that keeps its options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "registry_test_util.h"
#include "stormguard/config/config_json.h"

namespace stormguard::config {
namespace {
using ::testing::HasSubstr;
using testkit::Call;
using testkit::Describe;
using testkit::RegistryEnv;

constexpr std::string_view kThrottle =
    R"("adaptive_throttle": {"window": "1m", "k": 1.5, "min_requests": 5, "reject_on": ["overloaded", "transient"],
                             "seed": 9})";

// One destination "d" with `components` and the retry and throttle stages.
std::string ThrottledDest(std::string_view components, int attempts = 2) {
  return testkit::RetriedGuardDest(components, "adaptive_throttle", attempts);
}

TEST(ConfigThrottleTest, ReadsAndWritesBackEveryOption) {
  Result<Config> c = ParseConfig(ThrottledDest(kThrottle));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const AdaptiveThrottleOptions& o = *c->destinations.at("d").adaptive_throttle;
  EXPECT_EQ(o.window, std::chrono::minutes(1));
  EXPECT_EQ(o.k, 1.5);
  EXPECT_EQ(o.min_requests, 5);
  EXPECT_TRUE(o.reject_on.contains(OutcomeClass::kTransient));
  EXPECT_EQ(o.seed, 9u);
  const std::string shown = ToJson(*c);
  Result<Config> again = ParseConfig(shown);
  ASSERT_TRUE(again.ok()) << shown;
  EXPECT_EQ(ToJson(*again), shown);
  EXPECT_EQ(nlohmann::json::parse(shown)["destinations"]["d"]["adaptive_throttle"]["k"], 1.5);
}

class RegistryThrottleTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};

  void Apply(const std::string& text) { ASSERT_TRUE(registry.Apply(text, "test").ok()) << text; }
  const AdaptiveThrottle& InUse() { return testkit::StageOf<AdaptiveThrottleStage>(*registry.Get("d"))->throttle(); }
};

TEST_F(RegistryThrottleTest, BuildsTheStageOnTheDestinationsThrottle) {
  Apply(ThrottledDest(kThrottle));
  EXPECT_EQ(Describe(registry.Get("d")), "retry(2 attempts) -> adaptive_throttle(k 1.5) -> call");
  EXPECT_EQ(InUse().options().k, 1.5);
}

TEST_F(RegistryThrottleTest, TheWindowSurvivesAReloadThatKeepsTheOptions) {
  Apply(ThrottledDest(kThrottle));
  for (int i = 0; i < 10; ++i) (void)Call(*registry.Get("d"), Status::ResourceExhausted("busy"));
  const std::int64_t requests = InUse().Counts(env.clock.Now()).requests;
  EXPECT_GE(requests, 10);
  const AdaptiveThrottle* before = &InUse();

  Apply(ThrottledDest(kThrottle, 3));  // another retry, the same throttle
  EXPECT_EQ(&InUse(), before);
  EXPECT_EQ(InUse().Counts(env.clock.Now()).requests, requests);

  Apply(ThrottledDest(R"("adaptive_throttle": {"k": 3})"));
  EXPECT_NE(&InUse(), before) << "changed options must give a fresh throttle";
  EXPECT_EQ(InUse().Counts(env.clock.Now()).requests, 0);
}

TEST_F(RegistryThrottleTest, ABadValueNamesItsPathAndKeepsThePreviousConfiguration) {
  Apply(ThrottledDest(kThrottle));
  for (const char* bad :
       {R"("adaptive_throttle": {"k": 0.5})", R"("adaptive_throttle": {"window": "0s"})",
        R"("adaptive_throttle": {"reject_on": ["success"]})", R"("adaptive_throttle": {"min_requests": -1})"}) {
    const Status s = registry.Apply(ThrottledDest(bad), "bad");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("destinations.d.adaptive_throttle.")) << bad;
    EXPECT_EQ(registry.version(), 1u);
    EXPECT_EQ(InUse().options().k, 1.5);
  }
  const Status missing =
      registry.Apply(R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {}}, "adaptive_throttle"]}}}})",
                     "bad");
  EXPECT_THAT(missing.message(), HasSubstr("adaptive_throttle"));
  EXPECT_EQ(registry.version(), 1u);
}

}  // namespace
}  // namespace stormguard::config
