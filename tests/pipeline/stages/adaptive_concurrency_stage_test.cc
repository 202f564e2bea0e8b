#include "stormguard/pipeline/stages/adaptive_concurrency_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

TEST(AdaptiveConcurrencyStageTest, RefusesAboveItsLimitAndReleasesAfter) {
  ManualEnv env;
  auto limiter = std::shared_ptr<AdaptiveLimiter>(Unwrap(AdaptiveLimiter::Create(
      {.algorithm = LimitKind::kAimd, .aimd = {.initial_limit = 1, .min_limit = 1, .max_limit = 4}})));
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddAdaptiveConcurrency(limiter).Build());
  CallContext outer, inner;
  Status nested;
  Status s = p.Execute(outer, [&](CallContext&) {
    nested = p.Execute(inner, [](CallContext&) { return Status::Ok(); });
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(nested.source(), "adaptive_concurrency");
  EXPECT_EQ(limiter->inflight(), 0);
}

}  // namespace
}  // namespace stormguard
