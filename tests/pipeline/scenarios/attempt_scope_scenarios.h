// The attempt-scope scenarios, run by every driver as pipeline_scenarios.h's
// are: what an attempt takes (a bulkhead slot, a concurrency token, a
// breaker's trial permit, a rate limiter's token, a tighter deadline) goes
// back when the attempt ends, or when a stage further in refuses it, so the
// next attempt or call finds it again.
#pragma once

#include "pipeline/scenarios/pipeline_scenarios.h"

namespace stormguard::testkit {

template <class Driver>
class AttemptScopeScenarios : public PipelineScenarios<Driver> {
 protected:
  TimePoint In(Duration d) { return this->driver.clock().Now() + d; }
};

TYPED_TEST_SUITE_P(AttemptScopeScenarios);

// The retry decides on the call's deadline: the attempt's own (tightened by
// per_attempt_timeout) has passed once the attempt used its time.
TYPED_TEST_P(AttemptScopeScenarios, APerAttemptTimeoutLeavesTheCallsDeadlineToTheRetry) {
  RetryOptions o = this->Retries(2);
  o.per_attempt_timeout = 50ms;
  PipelineRef p = Unwrap(this->Builder().AddRetry(o).Build());
  CallRecord r = this->Run(p, {{50ms, kDown}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 150ms));
}

TYPED_TEST_P(AttemptScopeScenarios, ARetryOutsideABulkheadOfOneGetsTheSlotAgain) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1})));
  PipelineRef p = Unwrap(this->Builder().AddRetry(this->Retries(2)).AddBulkhead(bulkhead).Build());
  int in_use_during_backoff = -1;
  this->driver.clock().At(this->In(50ms), [&] { in_use_during_backoff = bulkhead->stats().in_use; });
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 110ms));
  EXPECT_EQ(in_use_during_backoff, 0);  // no slot is held while the retry waits
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

TYPED_TEST_P(AttemptScopeScenarios, ARetryOutsideAConcurrencyLimitOfOneIsAdmittedAgain) {
  auto limiter = std::shared_ptr<AdaptiveLimiter>(Unwrap(AdaptiveLimiter::Create(
      {.algorithm = LimitKind::kAimd, .aimd = {.initial_limit = 1, .min_limit = 1, .max_limit = 4}})));
  PipelineRef p = Unwrap(this->Builder().AddRetry(this->Retries(2)).AddAdaptiveConcurrency(limiter).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_EQ(limiter->inflight(), 0);
}

TYPED_TEST_P(AttemptScopeScenarios, AbandonedWorkHoldsItsBulkheadSlotUntilItEnds) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1})));
  PipelineRef p =
      Unwrap(this->Builder().AddBulkhead(bulkhead).AddAttemptTimeout({.timeout = 50ms, .abandon_after = 10ms}).Build());
  int in_use_after_the_timeout = -1;
  this->driver.clock().At(this->In(70ms), [&] { in_use_after_the_timeout = bulkhead->stats().in_use; });
  CallRecord r = this->Run(p, {{100ms, kDown, /*honours_stop=*/false}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(in_use_after_the_timeout, 1);  // the work still runs
  EXPECT_EQ(bulkhead->stats().in_use, 0);  // and gave the slot back when it ended
}

TYPED_TEST_P(AttemptScopeScenarios, TheBreakersTrialPermitComesBackWhenAStageFurtherInRefuses) {
  auto breaker = std::shared_ptr<CircuitBreaker>(Unwrap(
      CircuitBreaker::Create({.window_size = 4, .minimum_number_of_calls = 4, .permitted_calls_in_half_open = 1})));
  ASSERT_TRUE(breaker->TransitionToOpen(this->driver.clock().Now()).ok());
  ASSERT_TRUE(breaker->TransitionToHalfOpen(this->driver.clock().Now()).ok());
  PipelineRef p = Unwrap(this->Builder().AddCircuitBreaker(breaker).AddRequireIdempotencyKey().Build());
  CallContext no_key, with_key{.idempotency_key = "k"};
  EXPECT_EQ(this->driver.Run(p, no_key, {{10ms}}, false).result.status().source(), "idempotency_key");
  CallRecord trial = this->driver.Run(p, with_key, {{10ms}}, false);  // the one trial permit is free
  ASSERT_TRUE(trial.result.ok()) << trial.result.status().ToString();
  EXPECT_EQ(breaker->state(), CircuitState::kClosed);
}

TYPED_TEST_P(AttemptScopeScenarios, TheRateLimitersTokenComesBackWhenAStageFurtherInRefuses) {
  auto limiter = std::shared_ptr<RateLimiter>(Unwrap(RateLimiter::Create({.rate = 1, .burst = 1})));
  PipelineRef p = Unwrap(this->Builder().AddRateLimiter(limiter).AddRequireIdempotencyKey().Build());
  CallContext no_key, with_key{.idempotency_key = "k"};
  EXPECT_EQ(this->driver.Run(p, no_key, {{}}, false).result.status().source(), "idempotency_key");
  CallRecord r = this->driver.Run(p, with_key, {{}}, false);  // the one token is still there
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
}

TYPED_TEST_P(AttemptScopeScenarios, TheCallersStopEndsARateLimitWaitAndGivesTheTokenBack) {
  PipelineRef p =
      Unwrap(this->Builder().AddRateLimiter(RateLimiterOptions{.rate = 10, .burst = 1, .max_wait = 200ms}).Build());
  EXPECT_TRUE(this->Run(p, {{}}).result.ok());  // the next token comes 100ms later
  std::stop_source caller;
  this->driver.clock().At(this->In(50ms), [&] { caller.request_stop(); });
  CallContext ctx{.stop = caller.get_token()};
  CallRecord stopped = this->driver.Run(p, ctx, {{}}, false);
  EXPECT_EQ(stopped.result.status().code(), StatusCode::kCancelled);
  EXPECT_TRUE(stopped.attempt_starts.empty());
  EXPECT_EQ(stopped.took, 50ms);
  CallRecord next = this->Run(p, {{}});  // takes the token given back, not the one after it
  ASSERT_TRUE(next.result.ok()) << next.result.status().ToString();
  EXPECT_THAT(next.attempt_starts, ::testing::ElementsAre(50ms));
}

REGISTER_TYPED_TEST_SUITE_P(AttemptScopeScenarios, APerAttemptTimeoutLeavesTheCallsDeadlineToTheRetry,
                            ARetryOutsideABulkheadOfOneGetsTheSlotAgain,
                            ARetryOutsideAConcurrencyLimitOfOneIsAdmittedAgain,
                            AbandonedWorkHoldsItsBulkheadSlotUntilItEnds,
                            TheBreakersTrialPermitComesBackWhenAStageFurtherInRefuses,
                            TheRateLimitersTokenComesBackWhenAStageFurtherInRefuses,
                            TheCallersStopEndsARateLimitWaitAndGivesTheTokenBack);

}  // namespace stormguard::testkit
