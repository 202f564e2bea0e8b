// A server runs each call once: a pipeline around its handler may not hold a
// stage that runs attempts itself, whatever that stage is called.
#include "stormguard/pipeline/server_pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/exec/executor.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using testkit::ManualEnv;
using testkit::Unwrap;

// A stage of one's own that runs attempts, under a name no rule knows.
class RepeatOnServer final : public Stage {
 public:
  std::string_view name() const noexcept override { return "repeat"; }
  StagePlacement placement() const noexcept override { return {.reports_attempt_end = true}; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
};

TEST(ServerPipelineTest, EveryStageThatRunsAttemptsIsNamed) {
  ManualEnv env;
  auto workers = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddTimeout(1s)
                             .AddRetry({.max_attempts = 2, .idempotent = true})
                             .AddHedge({.delay = 10ms, .max_hedged_attempts = 1, .idempotent = true}, workers)
                             .Add(std::make_shared<RepeatOnServer>())
                             .Build());
  EXPECT_THAT(ServerPipelineErrors(p, "request"),
              ElementsAre("stages[1] (retry): a server runs each request once; retry and hedge belong to the caller",
                          "stages[2] (hedge): a server runs each request once; retry and hedge belong to the caller",
                          "stages[3] (repeat): a server runs each request once; retry and hedge belong to the caller"));
}

TEST(ServerPipelineTest, AStageThatRunsEachCallOnceOrNoPipelineIsFine) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).Build());
  EXPECT_TRUE(ServerPipelineErrors(p, "call").empty());
  EXPECT_TRUE(ServerPipelineErrors(static_cast<const Pipeline*>(nullptr), "call").empty());
}

}  // namespace
}  // namespace stormguard
