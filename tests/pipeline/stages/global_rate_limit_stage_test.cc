#include "stormguard/pipeline/stages/global_rate_limit_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "pipeline/pipeline_test_util.h"

namespace stormguard {
namespace global_limit_stage_test {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

// A limit of `limit`/s for a fleet this process shares with nobody: the
// first refresh (RefreshOnce, by hand) grants it the whole limit.
std::shared_ptr<GlobalRateLimiter> Limiter(ManualEnv& env, double limit, int burst) {
  auto store = std::make_shared<InMemoryLeaseStore>(limit, 10s);
  return Unwrap(GlobalRateLimiter::Create(
      {.name = "db", .instance_id = "me", .limit = limit, .burst = burst, .clock = &env.clock, .stripes = 1}, store));
}

TEST(GlobalRateLimitStageTest, SpendsTheShareAndRefusesTheRestAsOverload) {
  ManualEnv env;
  auto limiter = Limiter(env, 10, 2);
  ASSERT_TRUE(limiter->RefreshOnce().ok());
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddGlobalRateLimit(limiter).Build());
  EXPECT_EQ(p.Describe(), "global_rate_limit(db, 10/s for the fleet) -> call");
  CallContext ctx;
  int reached = 0;
  std::vector<Status> answers;
  for (int i = 0; i < 4; ++i) answers.push_back(p.Execute(ctx, [&](CallContext&) { return ++reached, Status::Ok(); }));
  EXPECT_EQ(reached, 2) << "the burst of 2, then nothing until a token comes";
  EXPECT_EQ(answers[2].code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(answers[2].source(), "global_rate_limit");
  EXPECT_THAT(answers[2].message(), ::testing::HasSubstr("global rate limit 'db'"));
  env.clock.Advance(100ms);  // one token at 10/s
  EXPECT_TRUE(p.Execute(ctx, [&](CallContext&) { return ++reached, Status::Ok(); }).ok());
  EXPECT_EQ(reached, 3);
}

// Every attempt is demand, refused ones included, and once only: that is
// what the instance reports to win a larger share.
TEST(GlobalRateLimitStageTest, EveryAttemptCountsOnceTowardsTheDemand) {
  ManualEnv env;
  auto limiter = Limiter(env, 100, 1);  // demand is reported up to the limit
  env.clock.Advance(1s);                // the first refresh starts the measuring
  ASSERT_TRUE(limiter->RefreshOnce().ok());
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddRetry({.max_attempts = 3, .backoff = {.kind = BackoffKind::kConstant, .base = 0ms}})
                             .AddGlobalRateLimit(limiter)
                             .Build());
  CallContext ctx;
  for (int i = 0; i < 10; ++i) (void)p.Execute(ctx, [](CallContext&) { return Status::Unavailable("down"); });
  env.clock.Advance(1s);
  ASSERT_TRUE(limiter->RefreshOnce().ok());
  // 10 calls of 3 attempts (the retry, with no budget here, retries an
  // overload refusal too): 30 attempts in the second, each counted once,
  // though only the first had a token.
  EXPECT_DOUBLE_EQ(limiter->last_demand(), 30.0);
}

TEST(GlobalRateLimitStageTest, AsyncFormAdmitsAndRefusesAsTheBlockingOne) {
  ManualEnv env;
  auto blocking = Limiter(env, 10, 3);
  auto async = Limiter(env, 10, 3);
  ASSERT_TRUE(blocking->RefreshOnce().ok());
  ASSERT_TRUE(async->RefreshOnce().ok());
  PipelineRef b = Unwrap(PipelineBuilder(env.options()).AddGlobalRateLimit(blocking).Build());
  PipelineRef a = Unwrap(PipelineBuilder(env.options()).AddGlobalRateLimit(async).Build());
  CallContext ctx;
  int b_calls = 0, a_calls = 0;
  for (int i = 0; i < 100; ++i) {
    const Status sb = b.Execute(ctx, [&](CallContext&) { return ++b_calls, Status::Ok(); });
    std::optional<Status> sa;
    a.ExecuteAsync(
        ctx, [&](CallContext&, Completion<Status> done) { ++a_calls, done(Status::Ok()); }, [&](Status s) { sa = s; });
    ASSERT_TRUE(sa.has_value());
    EXPECT_EQ(sa->code(), sb.code()) << i;
    env.clock.Advance(i % 3 == 0 ? 100ms : 10ms);
  }
  EXPECT_EQ(a_calls, b_calls);
  EXPECT_GT(b_calls, 3);
  EXPECT_LT(b_calls, 100);
}

TEST(GlobalRateLimitStageTest, ANullLimiterIsABuildError) {
  ManualEnv env;
  auto built = PipelineBuilder(env.options()).AddGlobalRateLimit(std::shared_ptr<GlobalRateLimiter>()).Build();
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.status().message(), ::testing::HasSubstr("global_rate_limit"));
}

}  // namespace global_limit_stage_test
}  // namespace stormguard
