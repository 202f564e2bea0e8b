#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

std::shared_ptr<CircuitBreaker> SmallBreaker(int half_open_permits = 10) {
  return Unwrap(CircuitBreaker::Create(
      {.window_size = 4, .minimum_number_of_calls = 4, .permitted_calls_in_half_open = half_open_permits}));
}

TEST(CircuitBreakerStageTest, OpenBreakerInsideRetryStopsTheRetriesAtOnce) {
  ManualEnv env;
  auto breaker = SmallBreaker();
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddRetry({.max_attempts = 10,
                                        .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                                        .idempotent = true})
                             .AddCircuitBreaker(breaker)
                             .Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 1s)};
  int calls = 0;
  Status s = p.Execute(ctx, [&](CallContext&) {
    ++calls;
    return Status::Unavailable("down");
  });
  EXPECT_EQ(calls, 4);  // the 4th failure opens the breaker (100% >= 50% of 4 calls)
  EXPECT_EQ(breaker->state(), CircuitState::kOpen);
  EXPECT_EQ(s.source(), "circuit_breaker");  // its 30s pushback outlasts the deadline: stop
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_LT(env.clock.Now() - (ctx.deadline.time() - 1s), 100ms);
}

TEST(CircuitBreakerStageTest, BreakerRecordsAttemptTimeoutsAsFailures) {
  ManualEnv env;
  auto breaker = SmallBreaker();
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddCircuitBreaker(breaker).AddAttemptTimeout(100ms).Build());
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

TEST(CircuitBreakerStageTest, BreakerPermitComesBackWhenAnInnerStageRefuses) {
  ManualEnv env;
  auto breaker = SmallBreaker(/*half_open_permits=*/1);
  ASSERT_TRUE(breaker->TransitionToOpen(env.clock.Now()).ok());
  ASSERT_TRUE(breaker->TransitionToHalfOpen(env.clock.Now()).ok());
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddCircuitBreaker(breaker).AddRequireIdempotencyKey().Build());
  CallContext no_key, with_key{.idempotency_key = "k"};
  auto ok = [](CallContext&) { return Status::Ok(); };
  EXPECT_EQ(p.Execute(no_key, ok).source(), "idempotency_key");
  EXPECT_TRUE(p.Execute(with_key, ok).ok());  // the single trial permit was still free
  EXPECT_EQ(breaker->state(), CircuitState::kClosed);
}

// A breaker the builder makes from options runs its automatic transition on
// the pipeline's timers: half-open when the wait ends, with no call.
TEST(CircuitBreakerStageTest, BreakerFromOptionsHalfOpensOnThePipelinesTimers) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddCircuitBreaker({.window_size = 1,
                                                 .minimum_number_of_calls = 1,
                                                 .wait_in_open = 5s,
                                                 .automatic_transition_from_open_to_half_open = true})
                             .Build());
  const auto& stage = dynamic_cast<const CircuitBreakerStage&>(p->stage(0));
  CallContext ctx;
  (void)p.Execute(ctx, [](CallContext&) { return Status::Unavailable("down"); });
  ASSERT_EQ(stage.breaker().state(), CircuitState::kOpen);
  env.AdvanceAndFire(5s);
  EXPECT_EQ(stage.breaker().state(), CircuitState::kHalfOpen);
}

}  // namespace
}  // namespace stormguard
