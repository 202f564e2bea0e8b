#include "stormguard/retry/retry_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "retry/fake_budget.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const TimePoint kNow = TimePoint(1h);

RetryOptions Deterministic() {
  return RetryOptions{.max_attempts = 4, .backoff = {.kind = BackoffKind::kExponential, .base = 100ms, .cap = 1s}};
}

RetryPolicy MakePolicy(RetryOptions o) {
  auto p = RetryPolicy::Create(std::move(o));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

RetryDecision Decide(const RetryPolicy& p, OutcomeClass c, const CallContext& ctx,
                     const Status& s = Status::Unavailable("x")) {
  Random rng(1);
  return p.Decide(c, s, ctx, kNow, Duration::zero(), rng);
}

TEST(RetryPolicyTest, SuccessStops) {
  auto d = Decide(MakePolicy(Deterministic()), OutcomeClass::kSuccess, {});
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.reason, StopReason::kSucceeded);
}

TEST(RetryPolicyTest, RetriesTransientAfterBackoffForThatAttempt) {
  RetryPolicy p = MakePolicy(Deterministic());
  CallContext ctx;
  ctx.attempt = 3;
  auto d = Decide(p, OutcomeClass::kTransient, ctx);
  ASSERT_TRUE(d.retry);
  EXPECT_EQ(d.wait, 400ms);
}

TEST(RetryPolicyTest, PermanentFailuresNeverRetry) {
  auto d = Decide(MakePolicy(Deterministic()), OutcomeClass::kPermanent, {});
  EXPECT_EQ(d.reason, StopReason::kNotRetryable);
}

TEST(RetryPolicyTest, RetryOnSetDecidesWhichClassesRetry) {
  RetryOptions o = Deterministic();
  o.retry_on = {OutcomeClass::kTransient};
  RetryPolicy p = MakePolicy(o);
  EXPECT_EQ(Decide(p, OutcomeClass::kOverloaded, {}).reason, StopReason::kNotRetryable);
  EXPECT_TRUE(Decide(p, OutcomeClass::kTransient, {}).retry);
}

TEST(RetryPolicyTest, DownstreamDoNotRetryStopsThisLayer) {
  auto d = Decide(MakePolicy(Deterministic()), OutcomeClass::kDoNotRetry, {});
  EXPECT_EQ(d.reason, StopReason::kDownstreamGaveUp);
}

TEST(RetryPolicyTest, AmbiguousOutcomeOfNonIdempotentCallWithoutKeyNeverRetries) {
  RetryPolicy p = MakePolicy(Deterministic());
  EXPECT_EQ(Decide(p, OutcomeClass::kAmbiguous, {}).reason, StopReason::kNotIdempotent);
  CallContext keyed;
  keyed.idempotency_key = "order-7";
  EXPECT_TRUE(Decide(p, OutcomeClass::kAmbiguous, keyed).retry);
  RetryOptions o = Deterministic();
  o.idempotent = true;
  EXPECT_TRUE(Decide(MakePolicy(o), OutcomeClass::kAmbiguous, {}).retry);
}

TEST(RetryPolicyTest, ACallThatSaysItIsIdempotentRetriesAnAmbiguousOutcome) {
  RetryPolicy p = MakePolicy(Deterministic());  // shared by every method of a destination
  EXPECT_TRUE(Decide(p, OutcomeClass::kAmbiguous, CallContext{.idempotent = true}).retry);
}

TEST(RetryPolicyTest, NonIdempotentCallStillRetriesFailuresThatDidNotRun) {
  EXPECT_TRUE(Decide(MakePolicy(Deterministic()), OutcomeClass::kTransient, {}).retry);
  EXPECT_TRUE(Decide(MakePolicy(Deterministic()), OutcomeClass::kOverloaded, {}).retry);
}

TEST(RetryPolicyTest, ServingARetriedRequestDoesNotRetryDownstream) {
  CallContext ctx;
  ctx.incoming_is_retry = true;
  EXPECT_EQ(Decide(MakePolicy(Deterministic()), OutcomeClass::kTransient, ctx).reason, StopReason::kIncomingRetry);
  RetryOptions o = Deterministic();
  o.retry_when_serving_a_retry = true;
  EXPECT_TRUE(Decide(MakePolicy(o), OutcomeClass::kTransient, ctx).retry);
}

TEST(RetryPolicyTest, MaxAttemptsCountsTheFirstCall) {
  RetryPolicy p = MakePolicy(Deterministic());
  CallContext ctx;
  ctx.attempt = 3;
  EXPECT_TRUE(Decide(p, OutcomeClass::kTransient, ctx).retry);
  ctx.attempt = 4;
  EXPECT_EQ(Decide(p, OutcomeClass::kTransient, ctx).reason, StopReason::kAttemptsExhausted);
  RetryOptions once = Deterministic();
  once.max_attempts = 1;
  EXPECT_EQ(Decide(MakePolicy(once), OutcomeClass::kTransient, {}).reason, StopReason::kAttemptsExhausted);
}

TEST(RetryPolicyTest, LongerPushbackReplacesBackoffAndIsClamped) {
  RetryOptions o = Deterministic();
  o.max_pushback = 2s;
  RetryPolicy p = MakePolicy(o);
  Status s = Status::ResourceExhausted("slow down");
  s.mutable_hints().pushback = 700ms;
  EXPECT_EQ(Decide(p, OutcomeClass::kOverloaded, {}, s).wait, 700ms);
  s.mutable_hints().pushback = 1h;
  EXPECT_EQ(Decide(p, OutcomeClass::kOverloaded, {}, s).wait, 2s);
}

TEST(RetryPolicyTest, ShorterPushbackNeverShortensTheBackoff) {
  RetryPolicy p = MakePolicy(Deterministic());  // first backoff: 100 ms
  Status s = Status::ResourceExhausted("slow down");
  for (const Duration pushback : {Duration(0s), Duration(50ms), Duration(-5s)}) {
    s.mutable_hints().pushback = pushback;
    EXPECT_EQ(Decide(p, OutcomeClass::kOverloaded, {}, s).wait, 100ms) << pushback.count();
  }
}

TEST(RetryPolicyTest, NegativePushbackStopsRetrying) {
  Status s = Status::Unavailable("go away");
  s.mutable_hints().pushback_stop = true;
  EXPECT_EQ(Decide(MakePolicy(Deterministic()), OutcomeClass::kTransient, {}, s).reason, StopReason::kPushbackStop);
}

TEST(RetryPolicyTest, StopsWhenBackoffPlusMinimumAttemptExceedsRemainingDeadline) {
  RetryOptions o = Deterministic();
  o.min_attempt_time = 60ms;
  RetryPolicy p = MakePolicy(o);
  CallContext ctx;
  ctx.deadline = Deadline::After(kNow, 160ms);  // exactly wait 100ms + 60ms
  EXPECT_TRUE(Decide(p, OutcomeClass::kTransient, ctx).retry);
  ctx.deadline = Deadline::After(kNow, 159ms);
  EXPECT_EQ(Decide(p, OutcomeClass::kTransient, ctx).reason, StopReason::kDeadline);
}

TEST(RetryPolicyTest, ExpiredDeadlineNeverRetriesEvenWithZeroWait) {
  RetryOptions o = Deterministic();
  o.backoff = {.kind = BackoffKind::kConstant, .base = 0ms, .cap = 1ms};
  CallContext ctx;
  ctx.deadline = Deadline::After(kNow, 0ms);
  EXPECT_EQ(Decide(MakePolicy(o), OutcomeClass::kTransient, ctx).reason, StopReason::kDeadline);
}

TEST(RetryPolicyTest, BudgetIsAskedLastAndChargedOnlyForARealRetry) {
  auto budget = std::make_shared<testkit::FakeBudget>(1);
  RetryOptions o = Deterministic();
  o.budget = budget;
  o.min_attempt_time = 60ms;
  RetryPolicy p = MakePolicy(o);
  CallContext tight;
  tight.deadline = Deadline::After(kNow, 100ms);
  EXPECT_EQ(Decide(p, OutcomeClass::kTransient, tight).reason, StopReason::kDeadline);
  EXPECT_TRUE(budget->log.empty());  // the deadline check came first: no token spent
  EXPECT_TRUE(Decide(p, OutcomeClass::kTransient, {}).retry);
  EXPECT_EQ(Decide(p, OutcomeClass::kTransient, {}).reason, StopReason::kBudgetExhausted);
  EXPECT_THAT(budget->log, ElementsAre("acquire", "refuse"));
}

TEST(RetryPolicyTest, CancelledCallNeverRetries) {
  std::stop_source source;
  source.request_stop();
  CallContext ctx;
  ctx.stop = source.get_token();
  EXPECT_EQ(Decide(MakePolicy(Deterministic()), OutcomeClass::kTransient, ctx).reason, StopReason::kCancelled);
  EXPECT_EQ(Decide(MakePolicy(Deterministic()), OutcomeClass::kCancelled, {}).reason, StopReason::kCancelled);
}

TEST(RetryPolicyTest, ValidateNamesEveryBadField) {
  RetryOptions o;
  o.max_attempts = 0;
  o.min_attempt_time = -1ms;
  o.backoff.cap = 0ms;
  o.per_attempt_timeout = 0ms;
  auto p = RetryPolicy::Create(o);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = p.status().message();
  EXPECT_THAT(m, HasSubstr("max_attempts: must be at least 1"));
  EXPECT_THAT(m, HasSubstr("min_attempt_time: must not be negative"));
  EXPECT_THAT(m, HasSubstr("backoff.cap: must be positive"));
  EXPECT_THAT(m, HasSubstr("per_attempt_timeout: must be positive"));
}

TEST(RetryPolicyTest, MaxAttemptsIsAtMostAThousand) {
  EXPECT_TRUE(RetryPolicy::Create({.max_attempts = kMaxRetryAttempts}).ok());
  const auto p = RetryPolicy::Create({.max_attempts = kMaxRetryAttempts + 1});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("max_attempts: must be at most 1000"));
}

TEST(RetryPolicyTest, AttemptDeadlineIsTheEarlierOfCallAndPerAttemptTimeout) {
  RetryOptions o = Deterministic();
  o.per_attempt_timeout = 300ms;
  RetryPolicy p = MakePolicy(o);
  EXPECT_EQ(p.AttemptDeadline(Deadline::After(kNow, 1s), kNow).Remaining(kNow), 300ms);
  EXPECT_EQ(p.AttemptDeadline(Deadline::After(kNow, 200ms), kNow).Remaining(kNow), 200ms);
  EXPECT_EQ(MakePolicy(Deterministic()).AttemptDeadline(Deadline(), kNow), Deadline());
}

}  // namespace
}  // namespace stormguard
