#include "stormguard/pipeline/stages/hedge_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::Unwrap;
using testkit::WaitForStop;

std::shared_ptr<Executor> OneWorker() { return Unwrap(Executor::Create({.threads = 1})); }

TEST(HedgeStageTest, FirstGoodAnswerWinsAndTheSlowAttemptIsCancelled) {
  CountingListener counters;
  PipelineRef p = Unwrap(PipelineBuilder({.listener = &counters})
                             .AddHedge({.delay = 0ms, .max_hedged_attempts = 1, .idempotent = true}, OneWorker())
                             .AddAttemptTimeout(30s)  // runs per hedged attempt, on its thread
                             .Build());
  EXPECT_EQ(p.Describe(), "hedge(1 after 0s) -> attempt_timeout(30s) -> call");
  CallContext ctx;
  bool primary_ran = false, primary_cancelled = false;
  Result<int> r = p.Execute(ctx, [&](CallContext& a) -> Result<int> {
    if (a.attempt == 1) {  // the primary hangs until the hedge's answer cancels it
      primary_ran = true;
      primary_cancelled = WaitForStop(a.stop);
      return Status::Cancelled("lost the race");
    }
    return 42;
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 42);
  // With no delay the hedge may even answer before the primary starts; a
  // primary that did start was cancelled by the answer.
  EXPECT_EQ(primary_cancelled, primary_ran);
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kAttemptStarted, PolicyId::kPipeline), primary_ran ? 2u : 1u);
  EXPECT_EQ(snap.count(EventKind::kHedgeLaunched, PolicyId::kHedge), 1u);
  EXPECT_EQ(snap.count(EventKind::kAttemptEnded, PolicyId::kPipeline), 0u);  // the hedge driver reports those
}

// Counts the attempts that pass through it, from any thread.
class CountingStage final : public Stage {
 public:
  std::string_view name() const noexcept override { return "counting"; }
  Status Execute(CallContext& ctx, Next next) const override {
    ++entered;
    return next(ctx);
  }
  mutable std::atomic<int> entered{0};
};

TEST(HedgeStageTest, StagesAfterTheHedgeRunOncePerHedgedAttempt) {
  auto counting = std::make_shared<CountingStage>();
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 2})));
  PipelineRef p = Unwrap(PipelineBuilder()
                             .AddHedge({.delay = 0ms, .max_hedged_attempts = 1, .idempotent = true}, OneWorker())
                             .Add(counting)
                             .AddBulkhead(bulkhead)
                             .Build());
  CallContext ctx;
  bool primary_ran = false;
  Status s = p.Execute(ctx, [&](CallContext& a) {
    if (a.attempt != 1) return Status::Ok();
    primary_ran = true;
    return WaitForStop(a.stop) ? Status::Cancelled("lost") : Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(counting->entered, primary_ran ? 2 : 1);
  EXPECT_EQ(bulkhead->stats().in_use, 0);  // both attempts gave their slots back
}

TEST(HedgeStageTest, HedgeOutsideRetryIsRejected) {
  auto r = PipelineBuilder()
               .AddHedge({.delay = 10ms, .idempotent = true}, OneWorker())
               .AddRetry({.max_attempts = 2})
               .Build();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("stages[0] (hedge): outside retry (stages[1])"));
  auto no_executor = PipelineBuilder().AddHedge({}, nullptr).Build();
  EXPECT_THAT(no_executor.status().message(), HasSubstr("stages[0] (hedge): executor: must not be null"));
}

TEST(HedgeStageTest, WithoutAnExecutorExecuteIsRefusedNamingTheStage) {
  PipelineRef p = Unwrap(PipelineBuilder()
                             .AddTimeout(1s)
                             .AddRetry({.max_attempts = 2})
                             .AddHedge({.delay = 10ms, .idempotent = true})
                             .Build());
  EXPECT_TRUE(p.AsyncSupport().ok()) << p.AsyncSupport().ToString();
  const Status why = p.BlockingSupport();
  EXPECT_EQ(why.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(why.message(), HasSubstr("pipeline: stages[2] (hedge): has no Executor"));
  EXPECT_THAT(why.message(), HasSubstr("AddHedge(options, executor)"));
  CallContext ctx;
  int calls = 0, fallbacks = 0;
  Result<int> r = p.Execute(
      ctx, [&](CallContext&) -> Result<int> { return ++calls; },
      [&](const Status&) -> Result<int> { return ++fallbacks; });
  EXPECT_EQ(r.status(), why);
  Status s = p.Execute(ctx, [&](CallContext&) { return Status::Ok(); });
  EXPECT_EQ(s, why);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(fallbacks, 0);  // a mistake in the pipeline, not a failure to hide
}

}  // namespace
}  // namespace stormguard
