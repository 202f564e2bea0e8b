// HedgeSession on its own: every decision of one hedged call, on virtual
// time given as plain time points (no clock, no threads, no waiting).
#include "stormguard/hedge/hedge_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hedge/hedge_test_util.h"
#include "testkit/recording_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::CountingBudget;
using hedge_testing::Idempotent;
using hedge_testing::Make;
using ::testing::ElementsAre;
using testkit::RecordingListener;

const TimePoint t0 = TimePoint(std::chrono::hours(1));

HedgeOptions With(HedgeOptions o, Listener* l, std::shared_ptr<RetryBudget> b) {
  o.listener = l;
  o.budget = std::move(b);
  return o;
}

// One session over a policy, with what each step asked the driver to do;
// its events are recorded and its budget grants `hedges_allowed` hedges.
struct Call {
  explicit Call(HedgeOptions o, int hedges_allowed = HedgeOptions::kMaxHedgedAttempts)
      : budget(std::make_shared<CountingBudget>(hedges_allowed)),
        policy(Make(With(std::move(o), &events, budget))),
        session(policy, ctx) {}
  RecordingListener events;
  std::shared_ptr<CountingBudget> budget;
  HedgePolicy policy;
  CallContext ctx;
  HedgeSession session;
  HedgeActions a;

  bool Begin(TimePoint now = t0) { return session.Begin(now, now, a); }
  // Begins, then the delay's timer fires at `at`.
  void BeginAndFire(TimePoint at) {
    ASSERT_TRUE(Begin());
    Timer(at);
  }
  HedgeVerdict End(int i, const Status& s, TimePoint at) { return session.OnAttemptEnd(i, s, at, at, a); }
  void Timer(TimePoint at) { session.OnTimer(at, true, a); }
  Status Finish(Status answer, TimePoint at) {
    session.Finish(answer, false, at, at);
    return answer;
  }
};

// The budget heard of one call, opened and closed.
void ExpectOneCall(const CountingBudget& b) {
  EXPECT_EQ(b.starts, 1);
  EXPECT_EQ(b.ends, 1);
}

TEST(HedgeSessionTest, APrimaryThatAnswersBeforeTheDelayEndsTheCallAndItsTimer) {
  Call c(Idempotent(10ms), 1);
  ASSERT_TRUE(c.Begin());
  EXPECT_EQ(c.a.launch_first, 0);
  EXPECT_EQ(c.a.launch_end, 1);  // the primary
  EXPECT_TRUE(c.a.arm_timer);
  EXPECT_EQ(c.a.timer_at, t0 + 10ms);
  EXPECT_EQ(c.End(0, Status::Ok(), t0 + 5ms), HedgeVerdict::kSucceeded);
  EXPECT_TRUE(c.a.answered);
  EXPECT_TRUE(c.a.cancel_timer);
  EXPECT_EQ(c.a.cancel, 0);
  EXPECT_TRUE(c.Finish(Status::Ok(), t0 + 5ms).ok());
  ExpectOneCall(*c.budget);
  EXPECT_EQ(c.budget->successes, 1);
  EXPECT_EQ(c.budget->acquired, 0);
}

TEST(HedgeSessionTest, TheTimerLaunchesAHedgeThatWinsAndStopsThePrimary) {
  Call c(Idempotent(10ms), 1);
  c.BeginAndFire(t0 + 10ms);
  EXPECT_EQ(c.a.launch_first, 1);
  EXPECT_EQ(c.a.launch_end, 2);
  EXPECT_FALSE(c.a.arm_timer);  // the only hedge went: nothing more to wait for
  EXPECT_EQ(c.End(1, Status::Ok(), t0 + 15ms), HedgeVerdict::kSucceeded);
  EXPECT_EQ(c.a.cancel, 1);  // the primary
  EXPECT_EQ(c.session.cancelled(), 1);
  EXPECT_EQ(c.session.answer(), 1);
  EXPECT_EQ(c.End(0, Status::Cancelled("stopped"), t0 + 16ms), HedgeVerdict::kLoser);
  EXPECT_FALSE(c.a.answered);
  c.Finish(Status::Ok(), t0 + 16ms);
  EXPECT_THAT(c.events.Log(), ElementsAre("hedge_launched:2", "attempt_ended:2", "hedge_won:2", "attempt_ended:1"));
  EXPECT_EQ(c.events.Of(EventKind::kHedgeLaunched)[0].duration, 10ms);
  EXPECT_EQ(c.budget->acquired, 1);
  EXPECT_EQ(c.budget->retry_ends, 1);
  EXPECT_EQ(c.budget->successes, 1);  // the cancelled loser says nothing
}

TEST(HedgeSessionTest, ANonFatalFailureLaunchesTheNextHedgeAtOnce) {
  Call c(Idempotent(1h));
  ASSERT_TRUE(c.Begin());
  EXPECT_EQ(c.End(0, Status::Unavailable("down"), t0 + 5ms), HedgeVerdict::kFailed);
  EXPECT_EQ(c.a.launch_first, 1);
  EXPECT_EQ(c.a.launch_end, 2);
  EXPECT_TRUE(c.a.cancel_timer);  // the hour-long timer is no longer wanted
  EXPECT_FALSE(c.a.answered);
}

TEST(HedgeSessionTest, APushbackMovesTheNextHedgeToItsTime) {
  Call c(Idempotent(1h));
  ASSERT_TRUE(c.Begin());
  c.End(0, Status::Unavailable("busy").WithHints({.pushback = 20ms}), t0 + 5ms);
  EXPECT_EQ(c.a.launch_end, 0);
  EXPECT_TRUE(c.a.arm_timer);  // replaces the later one
  EXPECT_EQ(c.a.timer_at, t0 + 25ms);
  c.Timer(t0 + 25ms);
  EXPECT_EQ(c.a.launch_first, 1);
  EXPECT_EQ(c.a.launch_end, 2);
}

TEST(HedgeSessionTest, WhenEveryAttemptFailsTheLastFailureAnswersAndGivesUpForTheChain) {
  Call c(Idempotent(Duration::zero()));
  ASSERT_TRUE(c.Begin());
  EXPECT_EQ(c.a.launch_end, 2);  // a zero delay sends the hedge with the primary
  EXPECT_EQ(c.End(1, Status::Unavailable("down"), t0 + 5ms), HedgeVerdict::kFailed);
  EXPECT_FALSE(c.a.answered);
  EXPECT_EQ(c.End(0, Status::Unavailable("down"), t0 + 6ms), HedgeVerdict::kFailed);
  EXPECT_TRUE(c.a.answered);
  EXPECT_EQ(c.session.answer(), 0);
  EXPECT_EQ(c.session.winner(), -1);
  const Status s = c.Finish(Status::Unavailable("down"), t0 + 6ms);
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_TRUE(c.ctx.downstream_gave_up);
  EXPECT_EQ(c.events.Log().back(), "gave_up:1:attempts_exhausted");
}

TEST(HedgeSessionTest, AFatalFailureAnswersUnmarked) {
  Call c(Idempotent(10ms));
  c.BeginAndFire(t0 + 10ms);
  EXPECT_EQ(c.End(1, Status::NotFound("no such stock"), t0 + 12ms), HedgeVerdict::kFatal);
  EXPECT_EQ(c.a.cancel, 1);
  EXPECT_EQ(c.session.stop(), HedgeStop::kFatal);
  const Status s = c.Finish(Status::NotFound("no such stock"), t0 + 12ms);
  EXPECT_FALSE(s.hints().do_not_retry);
  EXPECT_EQ(c.events.Log().back(), "gave_up:1:fatal");
}

TEST(HedgeSessionTest, ARefusingBudgetStopsHedgingAndTheFailureGivesUp) {
  Call c(Idempotent(10ms), 0);
  c.BeginAndFire(t0 + 10ms);
  EXPECT_EQ(c.a.launch_end, 0);
  EXPECT_EQ(c.session.stop(), HedgeStop::kBudgetExhausted);
  EXPECT_EQ(c.End(0, Status::Unavailable("down"), t0 + 30ms), HedgeVerdict::kFailed);
  EXPECT_TRUE(c.a.answered);
  EXPECT_TRUE(c.Finish(Status::Unavailable("down"), t0 + 30ms).hints().do_not_retry);
  EXPECT_EQ(c.events.Log().back(), "gave_up:1:budget_exhausted");
  EXPECT_EQ(c.budget->refused, 1);
  EXPECT_EQ(c.budget->failures, 1);
  ExpectOneCall(*c.budget);
}

TEST(HedgeSessionTest, TheDelayFollowsTheTrackerAndALoserIsRecordedAtItsElapsedTime) {
  auto tracker = LatencyTracker::Create({.min_samples = 1}).value();
  HedgeOptions o = Idempotent(1s);
  o.latency = tracker;
  o.delay_refresh = Duration::zero();
  Call first(o);
  ASSERT_TRUE(first.Begin());
  EXPECT_EQ(first.a.timer_at, t0 + 1s);  // no samples yet: the fixed delay
  first.Timer(t0 + 1s);
  first.End(1, Status::Ok(), t0 + 1s + 8ms);  // the primary, slower, is recorded at 1.008 s
  const std::optional<Duration> p = tracker->Quantile(0.95, t0 + 2s);
  ASSERT_TRUE(p.has_value());
  EXPECT_GE(*p, 1s);
  Call second(o);
  ASSERT_TRUE(second.Begin(t0 + 2s));
  EXPECT_EQ(second.a.timer_at, t0 + 2s + std::clamp(*p, o.min_delay, o.max_delay));
}

TEST(HedgeSessionTest, ACallThatCannotHedgeRunsOnePlainAttempt) {
  HedgeOptions o = Idempotent(10ms);
  o.idempotent = false;
  Call c(o);
  EXPECT_FALSE(c.Begin());
  EXPECT_EQ(c.session.stop(), HedgeStop::kNotIdempotent);
  c.session.OnInlineEnd(Status::Unavailable("down"), t0, t0 + 3ms, t0 + 3ms);
  const Status s = c.Finish(Status::Unavailable("down"), t0 + 3ms);
  EXPECT_FALSE(s.hints().do_not_retry);  // it never hedged: nothing to give up for the chain
  EXPECT_THAT(c.events.Log(), ElementsAre("attempt_ended:1", "gave_up:1:not_idempotent"));
  ExpectOneCall(*c.budget);
}

TEST(HedgeSessionTest, RefusedLaunchesNeverRanAndStopHedging) {
  Call c(Idempotent(Duration::zero(), 2), 2);
  ASSERT_TRUE(c.Begin());
  EXPECT_EQ(c.a.launch_end, 3);
  c.session.OnLaunchRefused(1, t0, c.a);
  EXPECT_EQ(c.session.launched(), 1);
  EXPECT_EQ(c.session.in_flight(), 1);
  EXPECT_EQ(c.session.stop(), HedgeStop::kExecutorBusy);
  EXPECT_EQ(c.budget->retry_ends, 2);
  EXPECT_EQ(c.End(0, Status::Unavailable("down"), t0 + 1ms), HedgeVerdict::kFailed);
  EXPECT_TRUE(c.a.answered);
  EXPECT_EQ(c.a.launch_end, 0);
}

TEST(HedgeSessionTest, TheCallersStopEndsLaunchingAndTheTimer) {
  Call c(Idempotent(10ms));
  ASSERT_TRUE(c.Begin());
  c.session.OnCallerCancelled(c.a);
  EXPECT_TRUE(c.a.cancel_timer);
  EXPECT_EQ(c.session.stop(), HedgeStop::kCancelled);
  EXPECT_FALSE(c.a.answered);  // the primary still runs
  c.End(0, Status::Cancelled("stopped"), t0 + 2ms);
  EXPECT_TRUE(c.a.answered);
}

TEST(HedgeSessionTest, AHedgeThatCannotFitBeforeTheDeadlineWaitsForAFailureOnly) {
  Call c(Idempotent(50ms));
  c.ctx.deadline = Deadline::After(t0, 30ms);
  ASSERT_TRUE(c.Begin());
  EXPECT_FALSE(c.a.arm_timer);  // the timed hedge would start after the deadline
  EXPECT_EQ(c.session.stop(), HedgeStop::kDeadline);
  EXPECT_EQ(c.End(0, Status::Unavailable("down"), t0 + 5ms), HedgeVerdict::kFailed);
  EXPECT_EQ(c.a.launch_end, 2);  // a failure launches it at once
}

TEST(HedgeSessionTest, AStrayAttemptOfAnEarlierCallIsOnlyBooked) {
  Call c(Idempotent(10ms), 1);
  ASSERT_TRUE(c.Begin());
  c.session.OnStrayAttemptEnd(2, true, Status::Unavailable("late"), 40ms, t0 + 1ms, t0 + 1ms);
  EXPECT_THAT(c.events.Log(), ElementsAre("attempt_ended:2"));
  EXPECT_EQ(c.budget->failures, 1);
  EXPECT_EQ(c.budget->retry_ends, 1);
  EXPECT_EQ(c.session.in_flight(), 1);
}

}  // namespace
}  // namespace stormguard
