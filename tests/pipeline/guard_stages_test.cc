#include "stormguard/pipeline/stages/guard_stages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::ManualEnv;
using testing::Unwrap;

std::shared_ptr<Bulkhead> OneSlot() { return Unwrap(Bulkhead::Create({.max_concurrent = 1})); }

std::shared_ptr<CircuitBreaker> SmallBreaker(int half_open_permits = 10) {
  return Unwrap(CircuitBreaker::Create({.window_size = 4, .minimum_number_of_calls = 4,
                                        .permitted_calls_in_half_open = half_open_permits}));
}

TEST(GuardStagesTest, OpenBreakerInsideRetryStopsTheRetriesAtOnce) {
  ManualEnv env;
  auto breaker = SmallBreaker();
  Pipeline p = Unwrap(PipelineBuilder(env.options())
                          .AddRetry({.max_attempts = 10,
                                     .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                                     .idempotent = true})
                          .AddCircuitBreaker(breaker)
                          .Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 1s)};
  int calls = 0;
  Status s = p.Execute(ctx, [&](CallContext&) { ++calls; return Status::Unavailable("down"); });
  EXPECT_EQ(calls, 4);  // the 4th failure opens the breaker (100% >= 50% of 4 calls)
  EXPECT_EQ(breaker->state(), CircuitState::kOpen);
  EXPECT_EQ(s.source(), "circuit_breaker");  // its 30s pushback outlasts the deadline: stop
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_LT(env.clock.Now() - (ctx.deadline.time() - 1s), 100ms);
}

TEST(GuardStagesTest, BreakerRecordsAttemptTimeoutsAsFailures) {
  ManualEnv env;
  auto breaker = SmallBreaker();
  Pipeline p =
      Unwrap(PipelineBuilder(env.options()).AddCircuitBreaker(breaker).AddAttemptTimeout(100ms).Build());
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    env.AdvanceAndFire(100ms);
    return c.stop.stop_requested() ? Status::Cancelled("stopped") : Status::Ok();
  });
  EXPECT_EQ(s.source(), "attempt_timeout");
  WindowMetrics m = breaker->metrics(env.clock.Now());
  EXPECT_EQ(m.calls, 1);
  EXPECT_EQ(m.failures, 1);
}

TEST(GuardStagesTest, BreakerPermitComesBackWhenAnInnerStageRefuses) {
  ManualEnv env;
  auto breaker = SmallBreaker(/*half_open_permits=*/1);
  ASSERT_TRUE(breaker->TransitionToOpen(env.clock.Now()).ok());
  ASSERT_TRUE(breaker->TransitionToHalfOpen(env.clock.Now()).ok());
  Pipeline p =
      Unwrap(PipelineBuilder(env.options()).AddCircuitBreaker(breaker).AddRequireIdempotencyKey().Build());
  CallContext no_key, with_key{.idempotency_key = "k"};
  auto ok = [](CallContext&) { return Status::Ok(); };
  EXPECT_EQ(p.Execute(no_key, ok).source(), "idempotency_key");
  EXPECT_TRUE(p.Execute(with_key, ok).ok());  // the single trial permit was still free
  EXPECT_EQ(breaker->state(), CircuitState::kClosed);
}

TEST(GuardStagesTest, FullBulkheadRefusesNamingIt) {
  ManualEnv env;
  auto bulkhead = OneSlot();
  Pipeline p = Unwrap(PipelineBuilder(env.options()).AddBulkhead(bulkhead).Build());
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

TEST(GuardStagesTest, AbandonedWorkHoldsItsBulkheadSlotUntilItEnds) {
  ManualEnv env;
  CountingListener counters;
  auto bulkhead = OneSlot();
  Pipeline p = Unwrap(PipelineBuilder(env.options(&counters))
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
  EXPECT_EQ(counters.Read().count(EventKind::kAbandoned, "attempt_timeout"), 1u);
}

TEST(GuardStagesTest, RateLimiterRefusesWithItsReasonUntilATokenRefills) {
  ManualEnv env;
  Pipeline p = Unwrap(
      PipelineBuilder(env.options()).AddRateLimiter(RateLimiterOptions{.rate = 1, .burst = 1}).Build());
  CallContext ctx;
  auto ok = [](CallContext&) { return Status::Ok(); };
  EXPECT_TRUE(p.Execute(ctx, ok).ok());
  Status refused = p.Execute(ctx, ok);
  EXPECT_EQ(refused.source(), "rate_limiter");
  EXPECT_THAT(refused.message(), HasSubstr("rate limit"));
  env.clock.Advance(1s);
  EXPECT_TRUE(p.Execute(ctx, ok).ok());
}

TEST(GuardStagesTest, RateLimiterTokenComesBackWhenAnInnerStageRefuses) {
  ManualEnv env;
  auto limiter = Unwrap(RateLimiter::Create({.rate = 1, .burst = 1}));
  std::shared_ptr<RateLimiter> shared = std::move(limiter);
  Pipeline p =
      Unwrap(PipelineBuilder(env.options()).AddRateLimiter(shared).AddRequireIdempotencyKey().Build());
  CallContext no_key;
  EXPECT_EQ(p.Execute(no_key, [](CallContext&) { return Status::Ok(); }).source(), "idempotency_key");
  EXPECT_DOUBLE_EQ(shared->AvailableTokens(env.clock.Now()), 1.0);
}

TEST(GuardStagesTest, AdaptiveConcurrencyRefusesAboveItsLimitAndReleasesAfter) {
  ManualEnv env;
  auto limiter = std::shared_ptr<AdaptiveLimiter>(Unwrap(AdaptiveLimiter::Create(
      {.algorithm = LimitKind::kAimd, .aimd = {.initial_limit = 1, .min_limit = 1, .max_limit = 4}})));
  Pipeline p = Unwrap(PipelineBuilder(env.options()).AddAdaptiveConcurrency(limiter).Build());
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

TEST(GuardStagesTest, GuardsCreatedFromOptionsReportToThePipelineListener) {
  ManualEnv env;
  CountingListener counters;
  Pipeline p = Unwrap(
      PipelineBuilder(env.options(&counters)).AddBulkhead(BulkheadOptions{.max_concurrent = 1}).Build());
  EXPECT_EQ(p.Describe(), "bulkhead(1) -> call");
  CallContext a, b;
  p.Execute(a, [&](CallContext&) { return p.Execute(b, [](CallContext&) { return Status::Ok(); }); });
  EXPECT_EQ(counters.Read().count(EventKind::kRejected, "bulkhead"), 1u);
}

TEST(GuardStagesTest, BuilderRejectsMissingOrInvalidGuards) {
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
