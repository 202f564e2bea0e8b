// Chaos from the configuration: a reload that changes only a chaos stage's
// enabled and rate switches the policy in use; any other change replaces it.
// The registry here allows chaos from configuration (RegistryOptions::allow_chaos;
// registry_refusal_test.cc has one that does not).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "registry_test_util.h"
#include "stormguard/config/config_json.h"
#include "stormguard/pipeline/stages/chaos_stage.h"

namespace stormguard::config {
namespace {
using testkit::Call;
using testkit::RegistryEnv;

// Destination "d": a retry of one attempt, then a chaos stage with `options`.
std::string Doc(const std::string& options) {
  return R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {"max_attempts": 1}}, {"chaos": )" + options +
         "}]}, \"methods\": {\"pkg.S/*\": {\"timeout\": \"1s\"}}}}}";
}

std::string Error(bool enabled, const std::string& rate, const std::string& code = "UNAVAILABLE") {
  return Doc(R"({"kind": "error", "seed": 7, "enabled": )" + std::string(enabled ? "true" : "false") + R"(, "rate": )" +
             rate + R"(, "status": {"code": ")" + code + R"(", "message": "rehearsal"}})");
}

// The chaos policy a pipeline runs, or null.
const ChaosPolicy* PolicyOf(const Pipeline& p) {
  const auto* chaos = testkit::StageOf<ChaosStage>(p);
  return chaos != nullptr ? &chaos->policy() : nullptr;
}

class RegistryChaosTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options(/*allow_chaos=*/true)};

  void Apply(const std::string& text) { ASSERT_TRUE(registry.Apply(text, "test").ok()) << text; }
  const ChaosPolicy* Policy(std::string_view method = {}) { return PolicyOf(*registry.Get("d", method)); }
  // How many of `n` calls through "d" got the injected fault.
  int Injected(int n) {
    int hit = 0;
    for (int i = 0; i < n; ++i) {
      const Status s = Call(registry.Get("d"), Status::Ok());
      hit += s.source() == ChaosPolicy::kPolicy ? 1 : 0;
    }
    return hit;
  }
};

TEST_F(RegistryChaosTest, AProcessThatAllowsChaosTakesItFromConfiguration) {
  Apply(Error(true, "1"));
  EXPECT_EQ(Injected(3), 3);
  EXPECT_EQ(registry.Stats().rejected, 0U);
}

TEST_F(RegistryChaosTest, EnablingByReloadSwitchesThePolicyInUse) {
  Apply(Error(false, "1"));
  const ChaosPolicy* before = Policy();
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(Injected(3), 0);

  Apply(Error(true, "1"));
  EXPECT_EQ(Policy(), before) << "a switch of enabled must keep the policy";
  const Status s = Call(registry.Get("d"), Status::Ok());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "rehearsal");
  EXPECT_TRUE(before->enabled());

  Apply(Error(false, "1"));
  EXPECT_EQ(Policy(), before);
  EXPECT_EQ(Injected(3), 0);
  EXPECT_EQ(registry.version(), 3U);
}

TEST_F(RegistryChaosTest, ARateChangeAppliesToThePolicyInUse) {
  Apply(Error(true, "0"));
  const ChaosPolicy* policy = Policy();
  EXPECT_EQ(Injected(100), 0);
  Apply(Error(true, "1"));
  EXPECT_EQ(Injected(100), 100);
  Apply(Error(true, "0.3"));
  EXPECT_EQ(Policy(), policy);
  EXPECT_EQ(policy->rate(), 0.3);
  const int hit = Injected(1000);
  EXPECT_GT(hit, 200);
  EXPECT_LT(hit, 400);
  EXPECT_EQ(policy->injected(), 100U + static_cast<unsigned>(hit)) << "the count goes on: one policy throughout";
}

TEST_F(RegistryChaosTest, AnyOtherChangeMakesAFreshPolicy) {
  Apply(Error(true, "1"));
  const ChaosPolicy* first = Policy();
  Apply(Error(true, "1", "ABORTED"));
  EXPECT_NE(Policy(), first);
  EXPECT_EQ(Call(registry.Get("d"), Status::Ok()).code(), StatusCode::kAborted);
}

TEST_F(RegistryChaosTest, EveryMethodSharesTheDestinationsPolicy) {
  Apply(Error(false, "1"));
  EXPECT_NE(registry.Get("d", "pkg.S/Get").get(), registry.Get("d").get()) << "the method has its own pipeline";
  EXPECT_EQ(Policy("pkg.S/Get"), Policy());
}

TEST_F(RegistryChaosTest, AnInvalidChaosSectionChangesNothing) {
  Apply(Error(false, "1"));
  const ChaosPolicy* policy = Policy();
  const Status s = registry.Apply(Doc(R"({"enabled": true, "rate": 2})"), "bad");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(env.events.back(), ::testing::StartsWith("rejected v1 bad: destinations.d.pipeline.stages[1].chaos."
                                                       "rate: must be in [0, 1], got 2"));
  EXPECT_EQ(registry.Stats().rejected, 1U);
  EXPECT_EQ(Policy(), policy);
  EXPECT_FALSE(policy->enabled());
  EXPECT_EQ(Injected(3), 0);
}

// A configuration refused while it is built (here, in another destination)
// must not switch a chaos policy it would have kept.
TEST_F(RegistryChaosTest, AConfigurationRefusedByTheBuildSwitchesNothing) {
  Apply(Error(false, "1"));
  Result<Config> next = ParseConfig(Error(true, "1"));
  ASSERT_TRUE(next.ok());
  next->destinations["e"].pipeline.stages = {StageConfig::Of("bulkhead")};  // no bulkhead: refused
  EXPECT_FALSE(registry.Apply(*next, "code").ok());
  EXPECT_FALSE(Policy()->enabled());
  EXPECT_EQ(Injected(3), 0);
}

TEST_F(RegistryChaosTest, AnInvalidRateInAConfigBuiltInCodeIsRefused) {
  Apply(Error(false, "1"));
  Result<Config> next = ParseConfig(Error(true, "1"));
  ASSERT_TRUE(next.ok());
  next->destinations["d"].pipeline.stages[1].options<ChaosConfig>()->options.rate =
      std::numeric_limits<double>::quiet_NaN();
  const Status s = registry.Apply(*next, "code");
  EXPECT_THAT(s.message(), ::testing::HasSubstr("destinations.d.pipeline.stages[1].chaos: "));
  EXPECT_FALSE(Policy()->enabled());
  EXPECT_EQ(Policy()->rate(), 1.0);
}

}  // namespace
}  // namespace stormguard::config
