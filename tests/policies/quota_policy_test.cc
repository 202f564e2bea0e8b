// A policy defined in the test tree (policies/quota_policy.h), used the way a
// program's own would be: from JSON, in `config show`, in a pipeline built by
// the registry under the blocking and the completion drivers (the Asio
// driver's test is adapters/asio/tests/asio_quota_policy_test.cc).
#include "policies/quota_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_show.h"
#include "stormguard/config/config_json.h"
#include "stormguard/config/registry.h"

namespace stormguard::testkit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr std::string_view kConfig = R"({"destinations": {"inventory": {"pipeline": {"stages": [
  {"quota": {"calls": 2}}, {"retry": {"max_attempts": 2}}]}}}})";

class QuotaPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterQuotaPolicy().ok()); }
};

TEST_F(QuotaPolicyTest, ANameIsRegisteredOnce) {
  EXPECT_EQ(config::RegisterStagePolicy(QuotaPolicy()).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(config::RegisterStagePolicy(config::StagePolicy{.name = "Bad Name"}).code(), StatusCode::kInvalidArgument);
  ASSERT_NE(config::FindStagePolicy("quota"), nullptr);
  EXPECT_EQ(config::StagePolicies().back()->name, "quota");  // after the library's own
}

TEST_F(QuotaPolicyTest, ReadsAndWritesItsOptions) {
  Result<config::Config> c = config::ParseConfig(kConfig);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const config::StageConfig& stage = c->destinations.at("inventory").pipeline.stages[0];
  ASSERT_TRUE(stage.Is("quota"));
  ASSERT_NE(stage.options<QuotaOptions>(), nullptr);
  EXPECT_EQ(stage.options<QuotaOptions>()->calls, 2);
  EXPECT_THAT(config::ToJson(*c), HasSubstr(R"("quota": {)"));
  Result<config::Config> again = config::ParseConfig(config::ToJson(*c));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->destinations.at("inventory").pipeline.stages[0].options<QuotaOptions>()->calls, 2);
}

TEST_F(QuotaPolicyTest, ItsErrorsNameTheField) {
  config::ParsedConfig p = config::ParseConfigText(
      R"({"destinations": {"d": {"pipeline": {"stages": [{"quota": {"calls": -1, "call": 1}}]}}}})");
  EXPECT_THAT(p.errors, UnorderedElementsAre(
                            "destinations.d.pipeline.stages[0].quota.calls: must be an integer in [0, 1000000000]",
                            "destinations.d.pipeline.stages[0].quota.call: unknown field"));
  p = config::ParseConfigText(R"({"destinations": {"d": {"pipeline": {"stages": ["quot"]}}}})");
  ASSERT_EQ(p.errors.size(), 1U);
  EXPECT_THAT(p.errors[0],
              HasSubstr("unknown stage (use fallback, timeout, attempt_timeout, retry, hedge, chaos, quota as"));
}

TEST_F(QuotaPolicyTest, ConfigShowPrintsItsOptions) {
  std::string out;
  Status s = cli::ShowEffective(config::ParseConfigText(kConfig), true, [&](std::string_view part) { out += part; });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_THAT(out, HasSubstr(R"("quota": {)"));
  EXPECT_THAT(out, HasSubstr(R"("calls": 2)"));
}

// The codes of three calls through the registry's pipeline, each run by `run`.
template <class Run>
std::vector<StatusCode> ThreeCalls(Run run) {
  config::Registry registry;
  EXPECT_TRUE(registry.Apply(kConfig, "test").ok());
  PipelineRef p = registry.Get("inventory");
  std::vector<StatusCode> codes;
  for (int i = 0; i < 3; ++i) {
    CallContext ctx;
    run(*p, ctx, codes);
  }
  return codes;
}

TEST_F(QuotaPolicyTest, TheRegistryBuildsItForTheBlockingDriver) {
  EXPECT_THAT(ThreeCalls([](const Pipeline& p, CallContext& ctx, std::vector<StatusCode>& codes) {
                codes.push_back(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).code());
              }),
              ElementsAre(StatusCode::kOk, StatusCode::kOk, StatusCode::kResourceExhausted));
}

TEST_F(QuotaPolicyTest, TheRegistryBuildsItForTheCompletionDriver) {
  EXPECT_THAT(ThreeCalls([](const Pipeline& p, CallContext& ctx, std::vector<StatusCode>& codes) {
                p.ExecuteAsync(
                    ctx, [](CallContext&, Completion<Status> done) { done(Status::Ok()); },
                    [&](Status s) { codes.push_back(s.code()); });
              }),
              ElementsAre(StatusCode::kOk, StatusCode::kOk, StatusCode::kResourceExhausted));
}

TEST_F(QuotaPolicyTest, AReloadBuildsAFreshQuota) {
  config::Registry registry;
  ASSERT_TRUE(registry.Apply(kConfig, "v1").ok());
  CallContext ctx;
  for (int i = 0; i < 2; ++i) (void)registry.Get("inventory")->Execute(ctx, [](CallContext&) { return Status::Ok(); });
  ASSERT_TRUE(registry.Apply(std::string(kConfig).replace(std::string(kConfig).find("2}"), 1, "5"), "v2").ok());
  EXPECT_TRUE(registry.Get("inventory")->Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
}

}  // namespace
}  // namespace stormguard::testkit
