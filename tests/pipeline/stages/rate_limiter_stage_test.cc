#include "stormguard/pipeline/stages/rate_limiter_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

TEST(RateLimiterStageTest, RefusesWithItsReasonUntilATokenRefills) {
  ManualEnv env;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options()).AddRateLimiter(RateLimiterOptions{.rate = 1, .burst = 1}).Build());
  CallContext ctx;
  auto ok = [](CallContext&) { return Status::Ok(); };
  EXPECT_TRUE(p.Execute(ctx, ok).ok());
  Status refused = p.Execute(ctx, ok);
  EXPECT_EQ(refused.source(), "rate_limiter");
  EXPECT_THAT(refused.message(), HasSubstr("rate limit"));
  env.clock.Advance(1s);
  EXPECT_TRUE(p.Execute(ctx, ok).ok());
}

TEST(RateLimiterStageTest, TokenComesBackWhenAnInnerStageRefuses) {
  ManualEnv env;
  auto limiter = Unwrap(RateLimiter::Create({.rate = 1, .burst = 1}));
  std::shared_ptr<RateLimiter> shared = std::move(limiter);
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRateLimiter(shared).AddRequireIdempotencyKey().Build());
  CallContext no_key;
  EXPECT_EQ(p.Execute(no_key, [](CallContext&) { return Status::Ok(); }).source(), "idempotency_key");
  EXPECT_DOUBLE_EQ(shared->AvailableTokens(env.clock.Now()), 1.0);
}

}  // namespace
}  // namespace stormguard
