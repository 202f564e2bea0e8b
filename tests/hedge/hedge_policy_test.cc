#include "stormguard/hedge/hedge_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/range_test_util.h"
#include "hedge/hedge_test_util.h"
#include "stormguard/core/clock.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::Idempotent;
using hedge_testing::Make;
using ::testing::ElementsAre;

HedgeState Launched(int n, TimePoint last) { return HedgeState{.launched = n, .last_launch = last}; }

void ExpectWait(const HedgeDecision& d, Duration wait, HedgeStop why = HedgeStop::kNone) {
  EXPECT_EQ(d.action, HedgeAction::kWait);
  EXPECT_EQ(d.wait, wait);
  EXPECT_EQ(d.reason, why);
}

void ExpectStop(const HedgeDecision& d, HedgeStop why) {
  EXPECT_EQ(d.action, HedgeAction::kStop);
  EXPECT_EQ(d.reason, why) << HedgeStopName(d.reason);
}

// A quantile, not a percentile: 95 is refused, 0.95 is p95.
TEST(HedgePolicyTest, QuantileIsAFractionInZeroToOne) {
  testkit::ExpectRangeChecked(HedgeOptions{}, &HedgeOptions::quantile, "quantile", kPositiveFraction);
  EXPECT_EQ(HedgeOptions{}.quantile, 0.95);
}

TEST(HedgePolicyTest, ValidateNamesEveryBadField) {
  HedgeOptions o{.delay = -1ms,
                 .max_hedged_attempts = 5,
                 .quantile = 0.0,
                 .min_delay = -1ms,
                 .max_delay = -2ms,
                 .delay_refresh = -1ms,
                 .non_fatal = {OutcomeClass::kSuccess},
                 .min_attempt_time = -1ms,
                 .max_pushback = -1ms,
                 .classifier = nullptr};
  EXPECT_THAT(o.Validate(), ElementsAre("delay: must not be negative (infinite: hedge only after failures)",
                                        "max_hedged_attempts: must be between 1 and 4",
                                        "quantile: must be in (0, 1], got 0", "min_delay: must not be negative",
                                        "max_delay: must be at least min_delay", "delay_refresh: must not be negative",
                                        "non_fatal: must not contain success", "min_attempt_time: must not be negative",
                                        "max_pushback: must not be negative", "classifier: must not be null"));
  EXPECT_EQ(HedgePolicy::Create(o).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(HedgeOptions{}.Validate().empty());
}

TEST(HedgePolicyTest, WaitsOutTheDelayThenLaunches) {
  ManualClock clock;
  const TimePoint t0 = clock.Now();
  const HedgePolicy p = Make(Idempotent(50ms));
  const CallContext ctx;
  ExpectWait(p.Decide(Launched(1, t0), ctx, t0), 50ms);
  ExpectWait(p.Decide(Launched(1, t0), ctx, t0 + 49ms), 1ms);
  EXPECT_EQ(p.Decide(Launched(1, t0), ctx, t0 + 50ms).action, HedgeAction::kLaunch);
}

TEST(HedgePolicyTest, ZeroDelayLaunchesEveryAttemptAtOnce) {
  ManualClock clock;
  const HedgePolicy p = Make(Idempotent(Duration::zero(), 3));
  const CallContext ctx;
  for (int launched = 1; launched <= 3; ++launched) {
    EXPECT_EQ(p.Decide(Launched(launched, clock.Now()), ctx, clock.Now()).action, HedgeAction::kLaunch);
  }
  ExpectStop(p.Decide(Launched(4, clock.Now()), ctx, clock.Now()), HedgeStop::kAttemptsExhausted);
}

TEST(HedgePolicyTest, InfiniteDelayHedgesOnlyAfterAFailure) {
  ManualClock clock;
  const HedgePolicy p = Make(Idempotent(kInfiniteDuration));
  const CallContext ctx;
  ExpectWait(p.Decide(Launched(1, clock.Now()), ctx, clock.Now() + 1h), kInfiniteDuration);
  HedgeState failed = Launched(1, clock.Now());
  failed.failed_since_last_launch = true;
  EXPECT_EQ(p.Decide(failed, ctx, clock.Now()).action, HedgeAction::kLaunch);
}

TEST(HedgePolicyTest, NonFatalFailureSkipsTheDelayButHonoursPushback) {
  ManualClock clock;
  const TimePoint t0 = clock.Now();
  const HedgePolicy p = Make(Idempotent(1s));
  const CallContext ctx;
  HedgeState s = Launched(1, t0);
  s.failed_since_last_launch = true;
  EXPECT_EQ(p.Decide(s, ctx, t0 + 5ms).action, HedgeAction::kLaunch);
  s.not_before = t0 + 30ms;
  ExpectWait(p.Decide(s, ctx, t0 + 5ms), 25ms);
  s.pushback_stop = true;
  ExpectStop(p.Decide(s, ctx, t0 + 5ms), HedgeStop::kPushbackStop);
}

TEST(HedgePolicyTest, NonIdempotentCallHedgesOnlyWithAnIdempotencyKey) {
  ManualClock clock;
  const HedgePolicy p = Make(HedgeOptions{.delay = Duration::zero()});
  CallContext ctx;
  ExpectStop(p.Decide(Launched(1, clock.Now()), ctx, clock.Now()), HedgeStop::kNotIdempotent);
  EXPECT_EQ(p.CheckCall(ctx, clock.Now()), HedgeStop::kNotIdempotent);
  ctx.idempotency_key = "order-7f3a";
  EXPECT_EQ(p.Decide(Launched(1, clock.Now()), ctx, clock.Now()).action, HedgeAction::kLaunch);
}

TEST(HedgePolicyTest, ACallThatSaysItIsIdempotentHedgesWithoutAKey) {
  ManualClock clock;
  const HedgePolicy p = Make(HedgeOptions{.delay = Duration::zero()});
  const CallContext ctx{.idempotent = true};
  EXPECT_EQ(p.Decide(Launched(1, clock.Now()), ctx, clock.Now()).action, HedgeAction::kLaunch);
}

TEST(HedgePolicyTest, ARequestThatIsItselfARetryIsNotHedged) {
  ManualClock clock;
  const CallContext ctx{.incoming_is_retry = true};
  EXPECT_EQ(Make(Idempotent(1ms)).CheckCall(ctx, clock.Now()), HedgeStop::kIncomingRetry);
  HedgeOptions o = Idempotent(1ms);
  o.hedge_when_serving_a_retry = true;
  EXPECT_EQ(Make(o).CheckCall(ctx, clock.Now()), HedgeStop::kNone);
}

TEST(HedgePolicyTest, CancelledCallIsNotHedged) {
  ManualClock clock;
  std::stop_source stop;
  stop.request_stop();
  const CallContext ctx{.stop = stop.get_token()};
  ExpectStop(Make(Idempotent(1ms)).Decide(Launched(1, clock.Now()), ctx, clock.Now()), HedgeStop::kCancelled);
}

TEST(HedgePolicyTest, NoTimedHedgeWhenTheDeadlineCannotFitIt) {
  ManualClock clock;
  const TimePoint t0 = clock.Now();
  HedgeOptions o = Idempotent(100ms);
  o.min_attempt_time = 30ms;
  const HedgePolicy p = Make(o);
  const CallContext ctx{.deadline = Deadline::After(t0, 120ms)};
  // The hedge would start at 100 ms with 20 ms left, less than 30 ms: only
  // a failure (which launches at once) could still use the time.
  ExpectWait(p.Decide(Launched(1, t0), ctx, t0), kInfiniteDuration, HedgeStop::kDeadline);
  HedgeState failed = Launched(1, t0);
  failed.failed_since_last_launch = true;
  EXPECT_EQ(p.Decide(failed, ctx, t0 + 10ms).action, HedgeAction::kLaunch);
  ExpectStop(p.Decide(failed, ctx, t0 + 95ms), HedgeStop::kDeadline);
  EXPECT_EQ(p.CheckCall(ctx, t0 + 100ms), HedgeStop::kDeadline);
}

TEST(HedgePolicyTest, AHedgeLeavingExactlyTheMinimumAttemptTimeStillLaunches) {
  ManualClock clock;
  const TimePoint t0 = clock.Now();
  HedgeOptions o = Idempotent(100ms);
  o.min_attempt_time = 30ms;
  const HedgePolicy p = Make(o);
  const CallContext exact{.deadline = Deadline::After(t0, 130ms)};  // the hedge gets 30 ms
  ExpectWait(p.Decide(Launched(1, t0), exact, t0), 100ms);
  EXPECT_EQ(p.Decide(Launched(1, t0), exact, t0 + 100ms).action, HedgeAction::kLaunch);
  EXPECT_EQ(p.CheckCall(exact, t0 + 100ms), HedgeStop::kNone);
  const CallContext short_by_1ns{.deadline = Deadline::After(t0, 130ms - Duration(1))};
  ExpectWait(p.Decide(Launched(1, t0), short_by_1ns, t0), kInfiniteDuration, HedgeStop::kDeadline);
  EXPECT_EQ(p.CheckCall(short_by_1ns, t0 + 100ms), HedgeStop::kDeadline);
}

TEST(HedgePolicyTest, BudgetIsChargedOnlyWhenAHedgeLaunches) {
  ManualClock clock;
  const TimePoint t0 = clock.Now();
  auto budget = std::make_shared<hedge_testing::CountingBudget>(1);
  HedgeOptions o = Idempotent(10ms, 2);
  o.budget = budget;
  const HedgePolicy p = Make(o);
  const CallContext ctx;
  ExpectWait(p.Decide(Launched(1, t0), ctx, t0), 10ms);
  EXPECT_EQ(budget->acquired + budget->refused, 0);
  EXPECT_EQ(p.Decide(Launched(1, t0), ctx, t0 + 10ms).action, HedgeAction::kLaunch);
  ExpectStop(p.Decide(Launched(2, t0 + 10ms), ctx, t0 + 20ms), HedgeStop::kBudgetExhausted);
  EXPECT_EQ(budget->acquired, 1);
  EXPECT_EQ(budget->refused, 1);
}

TEST(HedgePolicyTest, LiveDelayFollowsThePercentileWithinFloorAndCeiling) {
  ManualClock clock;
  auto tracker = LatencyTracker::Create({.window = 10s, .slices = 5, .min_samples = 20}).value();
  HedgeOptions o = Idempotent(200ms);
  o.latency = tracker;
  o.min_delay = 5ms;
  o.max_delay = 80ms;
  o.delay_refresh = Duration::zero();
  const HedgePolicy p = Make(o);
  EXPECT_EQ(p.CurrentDelay(clock.Now()), 200ms);  // too few samples: the fixed delay
  for (int i = 0; i < 100; ++i) tracker->Record(i < 95 ? 20ms : 300ms, clock.Now());
  const Duration p95 = LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(20ms));
  EXPECT_EQ(p.CurrentDelay(clock.Now()), p95);
  ExpectWait(p.Decide(Launched(1, clock.Now()), CallContext{}, clock.Now()), p95);

  clock.Advance(10s);  // the window now sees only slow calls
  for (int i = 0; i < 100; ++i) tracker->Record(500ms, clock.Now());
  EXPECT_EQ(p.CurrentDelay(clock.Now()), 80ms);  // ceiling
  clock.Advance(10s);
  for (int i = 0; i < 100; ++i) tracker->Record(1ms, clock.Now());
  EXPECT_EQ(p.CurrentDelay(clock.Now()), 5ms);  // floor
}

TEST(HedgePolicyTest, LiveDelayIsReusedUntilTheRefreshPeriodEnds) {
  ManualClock clock;
  auto tracker = LatencyTracker::Create({.min_samples = 1}).value();
  HedgeOptions o = Idempotent(200ms);
  o.latency = tracker;
  o.delay_refresh = 100ms;
  const HedgePolicy p = Make(o);
  tracker->Record(40ms, clock.Now());
  const Duration first = p.CurrentDelay(clock.Now());
  EXPECT_EQ(first, LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(40ms)));
  for (int i = 0; i < 10; ++i) tracker->Record(3s, clock.Now());
  clock.Advance(99ms);
  EXPECT_EQ(p.CurrentDelay(clock.Now()), first);
  clock.Advance(1ms);
  EXPECT_GT(p.CurrentDelay(clock.Now()), 2s);
}

}  // namespace
}  // namespace stormguard
