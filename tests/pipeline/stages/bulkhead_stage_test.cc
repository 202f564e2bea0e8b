#include "stormguard/pipeline/stages/bulkhead_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

std::shared_ptr<Bulkhead> OneSlot() { return Unwrap(Bulkhead::Create({.max_concurrent = 1})); }

TEST(BulkheadStageTest, FullBulkheadRefusesNamingIt) {
  ManualEnv env;
  auto bulkhead = OneSlot();
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddBulkhead(bulkhead).Build());
  CallContext outer, inner;
  Status nested;
  Status s = p.Execute(outer, [&](CallContext&) {
    nested = p.Execute(inner, [](CallContext&) { return Status::Ok(); });  // the slot is taken
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(nested.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(nested.source(), "bulkhead");
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

TEST(BulkheadStageTest, AbandonedWorkHoldsItsBulkheadSlotUntilItEnds) {
  ManualEnv env;
  CountingListener counters;
  auto bulkhead = OneSlot();
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters))
                             .AddBulkhead(bulkhead)
                             .AddAttemptTimeout({.timeout = 100ms, .abandon_after = 10ms})
                             .Build());
  CallContext ctx, other;
  Status while_abandoned;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    env.AdvanceAndFire(150ms);  // the timeout fired 50ms ago; this work ignores it
    EXPECT_TRUE(c.stop.stop_requested());
    while_abandoned = p.Execute(other, [](CallContext&) { return Status::Ok(); });
    return Status::Unavailable("finally gave up");
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(while_abandoned.source(), "bulkhead");  // the slot was still taken
  EXPECT_EQ(bulkhead->stats().in_use, 0);           // and is free once the work ended
  EXPECT_EQ(counters.Read().count(EventKind::kAbandoned, PolicyId::kAttemptTimeout), 1u);
}

TEST(BulkheadStageTest, GuardsCreatedFromOptionsReportToThePipelineListener) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options(&counters)).AddBulkhead(BulkheadOptions{.max_concurrent = 1}).Build());
  EXPECT_EQ(p.Describe(), "bulkhead(1) -> call");
  CallContext a, b;
  p.Execute(a, [&](CallContext&) { return p.Execute(b, [](CallContext&) { return Status::Ok(); }); });
  EXPECT_EQ(counters.Read().count(EventKind::kRejected, PolicyId::kBulkhead), 1u);
}

TEST(BulkheadStageTest, BuilderRejectsMissingOrInvalidGuards) {
  ManualEnv env;
  auto r = PipelineBuilder(env.options())
               .AddBulkhead(std::shared_ptr<Bulkhead>())
               .AddRateLimiter(RateLimiterOptions{.rate = 0})
               .Build();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("stages[0] (bulkhead): must not be null"));
  EXPECT_THAT(r.status().message(), HasSubstr("stages[1] (rate_limiter): rate"));
}

}  // namespace
}  // namespace stormguard
