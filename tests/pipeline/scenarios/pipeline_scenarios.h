// The scenario suite: pipeline behaviour written once, run by every driver
// (an instantiation per driver: pipeline_scenarios_test.cc, and any other
// driver's test binary). Virtual time, no sleeping; what a scenario checks
// is what the caller sees: the answer, when each attempt started, whether
// it saw its stop, how long the call took. Topics with suites of their own,
// on this fixture: hedge_scenarios.h, attempt_scope_scenarios.h,
// guard_scenarios.h.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/scenarios/scenario_driver.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard::testkit {

using namespace std::chrono_literals;

template <class Driver>
class PipelineScenarios : public ::testing::Test {
 protected:
  Driver driver;

  PipelineBuilder Builder(Listener* listener = nullptr) { return PipelineBuilder(driver.options(listener)); }
  CallRecord Run(const PipelineRef& p, const Script& script, bool with_fallback = false) {
    CallContext ctx;
    return driver.Run(p, ctx, script, with_fallback);
  }
  // Retries without jitter, so waits are exact.
  static RetryOptions Retries(int attempts, Duration base = 100ms) {
    return {.max_attempts = attempts,
            .backoff = {.kind = BackoffKind::kExponential, .base = base, .multiplier = 2, .jitter = Jitter::kNone}};
  }
};

TYPED_TEST_SUITE_P(PipelineScenarios);

const Status kDown = Status::Unavailable("down");

TYPED_TEST_P(PipelineScenarios, RetriesWaitTheBackoffBetweenAttempts) {
  PipelineRef p = Unwrap(this->Builder().AddRetry(this->Retries(3)).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms, kDown}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 3);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 110ms, 320ms));
  EXPECT_EQ(r.took, 330ms);
}

TYPED_TEST_P(PipelineScenarios, RetriesStopAtTheAttemptLimit) {
  PipelineRef p = Unwrap(this->Builder().AddRetry(this->Retries(2)).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms, kDown}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(r.result.status().hints().do_not_retry);  // this layer gave up for the chain
  EXPECT_EQ(r.attempt_starts.size(), 2u);
}

TYPED_TEST_P(PipelineScenarios, TheDeadlineStopsRetriesThatCouldNotFinish) {
  PipelineRef p = Unwrap(this->Builder().AddTimeout(250ms).AddRetry(this->Retries(5)).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms, kDown}, {10ms}});
  // The third attempt would start at 320ms, past the 250ms deadline.
  EXPECT_EQ(r.result.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 110ms));
  EXPECT_EQ(r.took, 120ms);
}

TYPED_TEST_P(PipelineScenarios, AnEmptyRetryBudgetStopsRetries) {
  auto budget = Unwrap(TokenBucketBudget::Create({.max_tokens = 1, .token_ratio = 0.1}));
  RetryOptions o = this->Retries(5);
  o.budget = budget;
  PipelineRef p = Unwrap(this->Builder().AddRetry(o).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms, kDown}, {10ms, kDown}, {10ms, kDown}, {10ms, kDown}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(r.result.status().hints().do_not_retry);
  // One token in the bucket pays for one retry; the second retry finds it empty.
  EXPECT_EQ(r.attempt_starts.size(), 2u);
}

TYPED_TEST_P(PipelineScenarios, TheCallersStopEndsABackoffWait) {
  PipelineRef p = Unwrap(this->Builder().AddRetry(this->Retries(3, 1s)).Build());
  std::stop_source caller;
  this->driver.clock().At(this->driver.clock().Now() + 50ms, [&] { caller.request_stop(); });
  CallContext ctx{.stop = caller.get_token()};
  CallRecord r = this->driver.Run(p, ctx, {{10ms, kDown}}, false);
  EXPECT_EQ(r.result.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(r.attempt_starts.size(), 1u);
  EXPECT_EQ(r.took, 50ms);
  EXPECT_EQ(ctx.attempt, 1);
}

TYPED_TEST_P(PipelineScenarios, ATimeoutReallyCancelsTheAttempt) {
  PipelineRef p = Unwrap(this->Builder().AddTimeout(50ms).Build());
  CallRecord r = this->Run(p, {{500ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.result.status().source(), "timeout");
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true));
  EXPECT_EQ(r.took, 50ms);
}

TYPED_TEST_P(PipelineScenarios, AnAttemptTimeoutBoundsEachAttemptAndTheRetryGoesOn) {
  RetryOptions o = this->Retries(2);
  o.idempotent = true;  // a timed-out attempt may have run
  PipelineRef p = Unwrap(this->Builder().AddRetry(o).AddAttemptTimeout(30ms).Build());
  CallRecord r = this->Run(p, {{500ms}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 130ms));
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, false));
}

TYPED_TEST_P(PipelineScenarios, WorkThatIgnoresItsStopIsReportedAbandoned) {
  CountingListener counters;
  PipelineRef p = Unwrap(this->Builder(&counters).AddTimeout({.timeout = 50ms, .abandon_after = 10ms}).Build());
  CallRecord r = this->Run(p, {{100ms, kDown, /*honours_stop=*/false}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.took, 100ms);  // the call ends when the work does
  EXPECT_EQ(counters.Read().count(EventKind::kAbandoned, PolicyId::kTimeout), 1u);
}

TYPED_TEST_P(PipelineScenarios, TheBreakerOpensThenLetsATrialThroughWhenHalfOpen) {
  auto breaker = Unwrap(CircuitBreaker::Create(
      {.window_size = 2, .minimum_number_of_calls = 2, .wait_in_open = 1s, .permitted_calls_in_half_open = 1}));
  PipelineRef p =
      Unwrap(this->Builder().AddCircuitBreaker(std::shared_ptr<CircuitBreaker>(std::move(breaker))).Build());
  const auto& cb = static_cast<const CircuitBreakerStage&>(p->stage(0)).breaker();
  this->Run(p, {{10ms, kDown}});
  this->Run(p, {{10ms, kDown}});
  EXPECT_EQ(cb.state(), CircuitState::kOpen);
  CallRecord refused = this->Run(p, {{10ms}});
  EXPECT_EQ(refused.result.status().source(), "circuit_breaker");
  EXPECT_TRUE(refused.attempt_starts.empty());
  this->driver.clock().Idle(1s);
  CallRecord trial = this->Run(p, {{10ms}});
  EXPECT_TRUE(trial.result.ok());
  EXPECT_EQ(trial.attempt_starts.size(), 1u);
  EXPECT_EQ(cb.state(), CircuitState::kClosed);
}

TYPED_TEST_P(PipelineScenarios, AFullBulkheadRefusesWithoutCalling) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1})));
  PipelineRef p = Unwrap(this->Builder().AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(this->driver.clock().Now()));
  CallRecord r = this->Run(p, {{10ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(r.result.status().source(), "bulkhead");
  EXPECT_TRUE(r.attempt_starts.empty());
}

TYPED_TEST_P(PipelineScenarios, AQueuedCallRunsWhenASlotFrees) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1, .max_wait = 100ms})));
  PipelineRef p = Unwrap(this->Builder().AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(this->driver.clock().Now()));
  this->driver.clock().At(this->driver.clock().Now() + 40ms, [&] { held.Release(); });
  CallRecord r = this->Run(p, {{10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(40ms));
  EXPECT_EQ(r.took, 50ms);
  EXPECT_EQ(bulkhead->stats().in_use, 0);
  EXPECT_EQ(bulkhead->stats().waiting, 0);
}

TYPED_TEST_P(PipelineScenarios, AQueuedCallGivesUpAfterMaxWait) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1, .max_wait = 100ms})));
  PipelineRef p = Unwrap(this->Builder().AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(this->driver.clock().Now()));
  CallRecord r = this->Run(p, {{10ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(r.attempt_starts.empty());
  EXPECT_EQ(r.took, 100ms);
  EXPECT_EQ(bulkhead->stats().waiting, 0);
}

TYPED_TEST_P(PipelineScenarios, AQueuedCallEndsWhenTheTimeoutFires) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1, .max_wait = 1s})));
  PipelineRef p = Unwrap(this->Builder().AddTimeout(30ms).AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(this->driver.clock().Now()));
  CallRecord r = this->Run(p, {{10ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.result.status().source(), "timeout");
  EXPECT_EQ(r.took, 30ms);
  EXPECT_EQ(bulkhead->stats().waiting, 0);
}

TYPED_TEST_P(PipelineScenarios, AnEmptyRateLimiterRefusesWithoutCalling) {
  PipelineRef p = Unwrap(this->Builder().AddRateLimiter(RateLimiterOptions{.rate = 10, .burst = 1}).Build());
  EXPECT_TRUE(this->Run(p, {{}}).result.ok());
  CallRecord r = this->Run(p, {{}});
  EXPECT_EQ(r.result.status().source(), "rate_limiter");
  EXPECT_TRUE(r.attempt_starts.empty());
}

TYPED_TEST_P(PipelineScenarios, ARateLimitedCallWaitsForTheNextToken) {
  PipelineRef p =
      Unwrap(this->Builder().AddRateLimiter(RateLimiterOptions{.rate = 10, .burst = 1, .max_wait = 200ms}).Build());
  EXPECT_TRUE(this->Run(p, {{}}).result.ok());
  CallRecord r = this->Run(p, {{}});  // the next token comes 100ms after the first
  EXPECT_TRUE(r.result.ok());
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(100ms));
}

TYPED_TEST_P(PipelineScenarios, TheFallbackAnswersWhenRetriesFail) {
  PipelineRef p = Unwrap(this->Builder().AddFallback().AddRetry(this->Retries(2)).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms, kDown}}, /*with_fallback=*/true);
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, -1);
  EXPECT_EQ(r.attempt_starts.size(), 2u);
}

TYPED_TEST_P(PipelineScenarios, TheFallbackAnswersARefusal) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1})));
  PipelineRef p = Unwrap(this->Builder().AddFallback().AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(this->driver.clock().Now()));
  CallRecord r = this->Run(p, {{10ms}}, /*with_fallback=*/true);
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(*r.result, -1);
}

TYPED_TEST_P(PipelineScenarios, TheFallbackAnswersWithoutCallingWhenTooLittleTimeIsLeft) {
  PipelineRef p = Unwrap(this->Builder().AddFallback({.skip_when_remaining_below = 50ms}).Build());
  CallContext ctx{.deadline = Deadline::After(this->driver.clock().Now(), 30ms)};
  CallRecord r = this->driver.Run(p, ctx, {{10ms}}, /*with_fallback=*/true);
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, -1);
  EXPECT_TRUE(r.attempt_starts.empty());
}

TYPED_TEST_P(PipelineScenarios, AMissingIdempotencyKeyIsRefused) {
  PipelineRef p = Unwrap(this->Builder().AddRetry(this->Retries(2)).AddRequireIdempotencyKey().Build());
  CallRecord r = this->Run(p, {{10ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(r.attempt_starts.empty());
}

TYPED_TEST_P(PipelineScenarios, TheUsualStackSucceedsAfterARetry) {
  auto breaker = std::shared_ptr<CircuitBreaker>(Unwrap(CircuitBreaker::Create({})));
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 2, .max_wait = 10ms})));
  RetryOptions o = this->Retries(3);
  PipelineRef p = Unwrap(this->Builder()
                             .AddFallback()
                             .AddTimeout(1s)
                             .AddRetry(o)
                             .AddCircuitBreaker(breaker)
                             .AddBulkhead(bulkhead)
                             .AddAdaptiveConcurrency(AdaptiveLimiterOptions{})
                             .AddAttemptTimeout(300ms)
                             .Build());
  CallRecord r = this->Run(p, {{20ms, kDown}, {20ms}}, /*with_fallback=*/true);
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 120ms));
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

REGISTER_TYPED_TEST_SUITE_P(PipelineScenarios, RetriesWaitTheBackoffBetweenAttempts, RetriesStopAtTheAttemptLimit,
                            TheDeadlineStopsRetriesThatCouldNotFinish, AnEmptyRetryBudgetStopsRetries,
                            TheCallersStopEndsABackoffWait, ATimeoutReallyCancelsTheAttempt,
                            AnAttemptTimeoutBoundsEachAttemptAndTheRetryGoesOn,
                            WorkThatIgnoresItsStopIsReportedAbandoned, TheBreakerOpensThenLetsATrialThroughWhenHalfOpen,
                            AFullBulkheadRefusesWithoutCalling, AQueuedCallRunsWhenASlotFrees,
                            AQueuedCallGivesUpAfterMaxWait, AQueuedCallEndsWhenTheTimeoutFires,
                            AnEmptyRateLimiterRefusesWithoutCalling, ARateLimitedCallWaitsForTheNextToken,
                            TheFallbackAnswersWhenRetriesFail, TheFallbackAnswersARefusal,
                            TheFallbackAnswersWithoutCallingWhenTooLittleTimeIsLeft, AMissingIdempotencyKeyIsRefused,
                            TheUsualStackSucceedsAfterARetry);

}  // namespace stormguard::testkit
