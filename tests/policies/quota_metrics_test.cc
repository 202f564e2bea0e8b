// The quota's metric families (policies/quota_policy.h): declared in its
// stage policy's registration, fed by its events by policy id, scraped by a
// MetricsListener. No library file names "quota".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policies/quota_policy.h"
#include "stormguard/config/registry.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::testkit {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kQuotaOfThree = R"({"destinations": {"inventory": {"pipeline": {"stages": [
  {"quota": {"calls": 3}}, {"retry": {"max_attempts": 2}}]}}}})";

// Five calls through the registry's pipeline, each answered by `answer`.
void FiveQuotaCalls(Listener& listener, Status answer) {
  config::Registry registry({.pipeline = {.listener = &listener}});
  ASSERT_TRUE(registry.Apply(kQuotaOfThree, "test").ok());
  for (int i = 0; i < 5; ++i) {
    CallContext ctx;
    (void)registry.Get("inventory")->Execute(ctx, [&](CallContext&) { return answer; });
  }
}

TEST(QuotaMetricsTest, TheScrapeCountsTheCallsTheQuotaAdmittedAndRefused) {
  ASSERT_TRUE(RegisterQuotaPolicy().ok());
  MetricsListener metrics;
  FiveQuotaCalls(metrics.For("inventory"), Status::Ok());
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("# HELP stormguard_quota_admitted_total Calls the quota let through.\n"
                              "# TYPE stormguard_quota_admitted_total counter\n"
                              "stormguard_quota_admitted_total{name=\"inventory\"} 3\n"
                              "# HELP stormguard_quota_rejected_total Calls the quota refused.\n"
                              "# TYPE stormguard_quota_rejected_total counter\n"
                              "stormguard_quota_rejected_total{name=\"inventory\"} 2\n"))
      << text;
  // The calls it admitted went on through the retry, once each.
  EXPECT_THAT(text,
              HasSubstr("stormguard_retry_calls_total{name=\"inventory\",kind=\"successful_without_retry\"} 3\n"));
}

// Instances apart: events routed by scope land in their own series.
TEST(QuotaMetricsTest, EachInstanceCountsItsOwnQuota) {
  ASSERT_TRUE(RegisterQuotaPolicy().ok());
  MetricsListener metrics;
  ScopedListener east("east", metrics);
  ScopedListener west("west", metrics);
  FiveQuotaCalls(east, Status::Ok());
  FiveQuotaCalls(west, Status::Unavailable("down"));  // admitted all the same: the quota counts calls
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("stormguard_quota_admitted_total{name=\"east\"} 3\n"
                              "stormguard_quota_admitted_total{name=\"west\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("stormguard_quota_rejected_total{name=\"east\"} 2\n"
                              "stormguard_quota_rejected_total{name=\"west\"} 2\n"));
}

// Its events carry its own id, never a built-in one: the families follow
// the id, whatever the stage is named in Status::source().
TEST(QuotaMetricsTest, ItsEventsCarryTheIdItsNameWasGiven) {
  ASSERT_TRUE(RegisterQuotaPolicy().ok());
  const Result<PolicyId> id = RegisterPolicyName("quota");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, QuotaPolicyId());
  EXPECT_GE(static_cast<int>(*id), static_cast<int>(PolicyId::kFirstProgramPolicy));
  EXPECT_EQ(PolicyName(*id), "quota");
  CountingListener counts;
  FiveQuotaCalls(counts, Status::Ok());
  EXPECT_EQ(counts.Read().count(EventKind::kAdmitted, *id), 3u);
  EXPECT_EQ(counts.Read().count(EventKind::kRejected, *id, "quota spent"), 2u);
}

// A bad family refuses the whole stage policy, naming the family's field.
TEST(QuotaMetricsTest, ABadFamilyRefusesThePolicyNamingTheField) {
  config::StagePolicy bad = QuotaPolicy();
  bad.name = "quota_bad_family";
  bad.metric_families[1].name = "stormguard_quota_refused";
  const Status s = config::RegisterStagePolicy(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("stage policy quota_bad_family: metric_families: metric family "
                                     "stormguard_quota_refused: name: a counter's must end in _total"));
  EXPECT_EQ(config::FindStagePolicy("quota_bad_family"), nullptr);
}

}  // namespace
}  // namespace stormguard::testkit
