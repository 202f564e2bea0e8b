// RetrySession drives no I/O, so these tests step it by hand, the way an
// event-loop driver (the simulator, an asynchronous client) does.
#include "stormguard/retry/retry_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "retry/fake_budget.h"
#include "testkit/recording_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;

const TimePoint kT0 = TimePoint(1h);

RetryPolicy Make(std::shared_ptr<RetryBudget> budget, int attempts = 3) {
  auto p = RetryPolicy::Create({.max_attempts = attempts,
                                .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                                .budget = std::move(budget)});
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

// One call's session over a FakeBudget that allows `retries_allowed`.
struct Call {
  explicit Call(int retries_allowed, int attempts = 3)
      : budget(std::make_shared<testkit::FakeBudget>(retries_allowed)),
        policy(Make(budget, attempts)),
        session(policy, ctx, kT0) {}

  RetryDecision End(Status& s) {
    return session.OnAttemptEnd(s, policy.Classify(s), ctx, kT0, kT0, Duration::zero(), rng);
  }

  std::shared_ptr<testkit::FakeBudget> budget;
  RetryPolicy policy;
  Random rng{1};
  CallContext ctx;
  RetrySession session;
};

TEST(RetrySessionTest, KeepsTheBudgetsBooksAcrossRetriesThenASuccess) {
  Call call(/*retries_allowed=*/5);
  for (int i = 0; i < 2; ++i) {
    Status failed = Status::Unavailable("down");
    const RetryDecision d = call.End(failed);
    ASSERT_TRUE(d.retry);
    EXPECT_EQ(d.wait, 10ms);
    EXPECT_EQ(call.session.previous_wait(), 10ms);
    ++call.ctx.attempt;
  }
  EXPECT_EQ(call.ctx.attempt, 3);  // the driver counts attempts; the session resets them at the end
  call.session.OnQuietSuccess(call.ctx, kT0);
  EXPECT_EQ(call.ctx.attempt, 1);  // back to the call's first
  EXPECT_THAT(call.budget->log, ElementsAre("start", "failure", "acquire", "failure", "retry_end", "acquire", "success",
                                            "retry_end", "end"));
}

// A success with a listener skips the policy's decision but keeps the same
// books as a quiet one, and reports the attempt that succeeded.
TEST(RetrySessionTest, ASuccessClosesTheBooksAndReportsItsAttempt) {
  testkit::RecordingListener events;
  auto budget = std::make_shared<testkit::FakeBudget>(5);
  auto policy = RetryPolicy::Create({.max_attempts = 3, .budget = budget, .listener = &events});
  ASSERT_TRUE(policy.ok());
  CallContext ctx;
  RetrySession session(*policy, ctx, kT0);
  Random rng{1};
  Status failed = Status::Unavailable("down");
  ASSERT_TRUE(session.OnAttemptEnd(failed, policy->Classify(failed), ctx, kT0, kT0, 2ms, rng).retry);
  ++ctx.attempt;
  session.OnSuccess(ctx, kT0 + 5ms, kT0 + 5ms, 3ms);
  EXPECT_EQ(ctx.attempt, 1);
  EXPECT_THAT(budget->log, ElementsAre("start", "failure", "acquire", "success", "retry_end", "end"));
  const std::vector<Event> all = events.events();
  ASSERT_EQ(all.size(), 3u);  // attempt 1 ended, retry scheduled, attempt 2 ended
  const Event& last = all.back();
  EXPECT_EQ(last.kind, EventKind::kAttemptEnded);
  EXPECT_EQ(last.policy, PolicyId::kRetry);
  EXPECT_EQ(last.attempt, 2);
  EXPECT_EQ(last.outcome, OutcomeClass::kSuccess);
  EXPECT_EQ(last.duration, 3ms);
  EXPECT_EQ(last.at, kT0 + 5ms);
}

TEST(RetrySessionTest, GivingUpMarksTheStatusForTheChainAndClosesTheBooks) {
  Call call(/*retries_allowed=*/5, /*attempts=*/2);
  Status first = Status::Unavailable("down");
  ASSERT_TRUE(call.End(first).retry);
  EXPECT_FALSE(first.hints().do_not_retry);  // a retry follows: nothing to tell the chain
  ++call.ctx.attempt;
  Status last = Status::Unavailable("still down");
  const RetryDecision d = call.End(last);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.reason, StopReason::kAttemptsExhausted);
  EXPECT_TRUE(last.hints().do_not_retry);
  EXPECT_TRUE(call.ctx.downstream_gave_up);
  EXPECT_EQ(call.ctx.attempt, 1);
  EXPECT_THAT(call.budget->log, ElementsAre("start", "failure", "acquire", "failure", "retry_end", "end"));
}

TEST(RetrySessionTest, ARefusedRetryIsNotChargedAndEndsTheRequest) {
  Call call(/*retries_allowed=*/0);
  Status failed = Status::Unavailable("down");
  EXPECT_EQ(call.End(failed).reason, StopReason::kBudgetExhausted);
  EXPECT_TRUE(failed.hints().do_not_retry);
  EXPECT_THAT(call.budget->log, ElementsAre("start", "failure", "refuse", "end"));
}

TEST(RetrySessionTest, ACancelledWaitGivesBackTheGrantedRetry) {
  Call call(/*retries_allowed=*/5);
  Status failed = Status::Unavailable("down");
  ASSERT_TRUE(call.End(failed).retry);
  const Status answer = call.session.OnWaitCancelled(call.ctx, kT0);
  EXPECT_EQ(answer.code(), StatusCode::kCancelled);
  EXPECT_THAT(call.budget->log, ElementsAre("start", "failure", "acquire", "retry_end", "end"));
}

TEST(RetrySessionTest, ASingleAttemptLayerPassesFailuresThroughUnmarked) {
  Call call(/*retries_allowed=*/5, /*attempts=*/1);
  Status failed = Status::Unavailable("down");
  EXPECT_EQ(call.End(failed).reason, StopReason::kAttemptsExhausted);
  EXPECT_FALSE(failed.hints().do_not_retry);  // the one layer that retries still can
  EXPECT_FALSE(GivesUpForTheChain(call.policy, StopReason::kAttemptsExhausted));
  EXPECT_TRUE(GivesUpForTheChain(call.policy, StopReason::kDownstreamGaveUp));
}

}  // namespace
}  // namespace stormguard
