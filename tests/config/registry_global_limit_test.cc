// "global_rate_limit" from configuration: read and shown back; built on the
// store the program's factory makes, for the program's instance; kept
// (lease and tokens) across a reload that keeps its options; refused with
// its path when its options are bad or the process keeps no shares.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "registry_test_util.h"
#include "stormguard/config/config_json.h"

namespace stormguard::config {
namespace {
using ::testing::HasSubstr;
using testkit::Call;
using testkit::Describe;
using testkit::RegistryEnv;

constexpr std::string_view kLimit =
    R"("global_rate_limit": {"name": "orders-db", "limit": 2, "burst": 3, "refresh_interval": "500ms",
                             "lease_length": "5s", "fallback": "deny", "initial_instances": 4})";

// One destination "d" with `components` and a retry around the limit.
std::string LimitedDest(std::string_view components, int attempts = 1) {
  return testkit::RetriedGuardDest(components, "global_rate_limit", attempts);
}

TEST(ConfigGlobalLimitTest, ReadsAndWritesBackEveryOption) {
  Result<Config> c = ParseConfig(LimitedDest(kLimit));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const GlobalRateLimiterOptions& o = *c->destinations.at("d").global_rate_limit;
  EXPECT_EQ(o.name, "orders-db");
  EXPECT_EQ(o.limit, 2);
  EXPECT_EQ(o.burst, 3);
  EXPECT_EQ(o.refresh_interval, std::chrono::milliseconds(500));
  EXPECT_EQ(o.lease_length, std::chrono::seconds(5));
  EXPECT_EQ(o.fallback, LeaseFallback::kDeny);
  EXPECT_EQ(o.initial_instances, 4);
  EXPECT_TRUE(o.instance_id.empty()) << "the instance is the program's, never the file's";
  const std::string shown = ToJson(*c);
  Result<Config> again = ParseConfig(shown);
  ASSERT_TRUE(again.ok()) << shown;
  EXPECT_EQ(ToJson(*again), shown);
  EXPECT_EQ(nlohmann::json::parse(shown)["destinations"]["d"]["global_rate_limit"]["fallback"], "deny");
}

class RegistryGlobalLimitTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  std::vector<GlobalRateLimiterOptions> made;  // what the factory was asked for
  Registry registry{WithStores(env.Options())};

  RegistryOptions WithStores(RegistryOptions o) {
    o.instance_id = "test-instance";
    o.lease_stores = [this](const GlobalRateLimiterOptions& limit) -> Result<std::shared_ptr<LeaseStore>> {
      made.push_back(limit);
      if (limit.name == "unreachable") return Status::Unavailable("no such Redis");
      return std::shared_ptr<LeaseStore>(std::make_shared<InMemoryLeaseStore>(limit.limit, limit.lease_length));
    };
    return o;
  }
  void Apply(const std::string& text) { ASSERT_TRUE(registry.Apply(text, "test").ok()) << text; }
  const GlobalRateLimiter& InUse() { return testkit::StageOf<GlobalRateLimitStage>(*registry.Get("d"))->limiter(); }
  // Calls at the current time until one is refused; the calls admitted.
  int AdmittedUntilRefused() {
    int admitted = 0;
    for (int i = 0; i < 1000; ++i) {
      const Status s = Call(*registry.Get("d"), Status::Ok());
      if (!s.ok()) {
        EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
        EXPECT_EQ(s.source(), "global_rate_limit");
        return admitted;
      }
      ++admitted;
    }
    ADD_FAILURE() << "never refused";
    return admitted;
  }
};

TEST_F(RegistryGlobalLimitTest, BuildsTheStageOnAStoreTheProgramMakesForItsInstance) {
  Apply(LimitedDest(kLimit));
  EXPECT_EQ(Describe(registry.Get("d")),
            "retry(1 attempts) -> global_rate_limit(orders-db, 2/s for the fleet) -> call");
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].name, "orders-db");
  EXPECT_EQ(made[0].limit, 2);
  EXPECT_EQ(made[0].lease_length, std::chrono::seconds(5));
  EXPECT_EQ(made[0].instance_id, "test-instance");
  EXPECT_EQ(InUse().options().instance_id, "test-instance");
  EXPECT_EQ(InUse().state(), GlobalLimitState::kStarting);
}

TEST_F(RegistryGlobalLimitTest, CallsSpendTheStaticShareUntilTheFirstLease) {
  // Before any lease: limit / initial_instances = 0.5/s, and its share of the burst.
  Apply(LimitedDest(R"("global_rate_limit": {"name": "db", "limit": 2, "burst": 8, "initial_instances": 4})"));
  const int first = AdmittedUntilRefused();
  EXPECT_GE(first, 1);
  EXPECT_LE(first, 8) << "a quarter of the fleet's burst of 8, however it is striped";
  env.clock.Advance(std::chrono::seconds(2));  // one token at 0.5/s
  EXPECT_EQ(AdmittedUntilRefused(), 1);
}

TEST_F(RegistryGlobalLimitTest, TheLimiterSurvivesAReloadThatKeepsItsOptions) {
  Apply(LimitedDest(kLimit));
  (void)AdmittedUntilRefused();
  const GlobalRateLimiter* before = &InUse();

  Apply(LimitedDest(kLimit, 2));  // another retry, the same limit: its spent tokens stay spent
  EXPECT_EQ(&InUse(), before);
  EXPECT_EQ(made.size(), 1u) << "no second store for an unchanged limit";
  EXPECT_EQ(AdmittedUntilRefused(), 0);

  Apply(LimitedDest(R"("global_rate_limit": {"name": "orders-db", "limit": 50, "burst": 3})"));
  EXPECT_NE(&InUse(), before) << "changed options must give a fresh limiter";
  ASSERT_EQ(made.size(), 2u);
  EXPECT_EQ(made[1].limit, 50);
  EXPECT_GE(AdmittedUntilRefused(), 1);
}

TEST_F(RegistryGlobalLimitTest, ABadValueNamesItsPathAndKeepsThePreviousConfiguration) {
  Apply(LimitedDest(kLimit));
  for (const char* bad :
       {R"("global_rate_limit": {"name": "orders-db", "limit": -1})",
        R"("global_rate_limit": {"name": "orders-db", "limit": 1e12})",
        R"("global_rate_limit": {"name": "a b", "limit": 10})", R"("global_rate_limit": {"limit": 10})",
        R"("global_rate_limit": {"name": "x", "limit": 10, "fallback": "unlimited"})",
        R"("global_rate_limit": {"name": "x", "limit": 10, "lease_length": "1s"})",
        R"("global_rate_limit": {"name": "x", "limit": 10, "burst": 0})",
        R"("global_rate_limit": {"name": "x", "limit": 10, "instance_id": "me"})"}) {
    const Status s = registry.Apply(LimitedDest(bad), "bad");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("destinations.d.global_rate_limit")) << bad << ": " << s.message();
    EXPECT_EQ(registry.version(), 1u);
    EXPECT_EQ(InUse().options().name, "orders-db");
  }
  EXPECT_EQ(made.size(), 1u) << "a refused configuration makes no store";
}

TEST_F(RegistryGlobalLimitTest, AStoreTheFactoryCannotMakeIsAnErrorWithItsPath) {
  Apply(LimitedDest(kLimit));
  const Status s = registry.Apply(LimitedDest(R"("global_rate_limit": {"name": "unreachable", "limit": 10})"), "bad");
  EXPECT_THAT(s.message(), HasSubstr("destinations.d.global_rate_limit: lease store: no such Redis"));
  EXPECT_EQ(registry.version(), 1u);
}

TEST(RegistryWithoutLeaseStoresTest, RefusesAGlobalLimitAndSaysWhatIsMissing) {
  RegistryEnv env;
  Registry registry(env.Options());
  const Status s = registry.Apply(LimitedDest(kLimit), "no-store");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("destinations.d.global_rate_limit: "));
  EXPECT_THAT(s.message(), HasSubstr("RegistryOptions::lease_stores"));
  EXPECT_TRUE(registry.on_defaults());
}

}  // namespace
}  // namespace stormguard::config
