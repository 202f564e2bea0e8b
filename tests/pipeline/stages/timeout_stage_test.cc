#include "stormguard/pipeline/stages/timeout_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

const TimeoutStage& TimeoutAt(const Pipeline& p, std::size_t i) {
  return dynamic_cast<const TimeoutStage&>(p.stage(i));
}

// A callable that does its work until its deadline or its stop, as a
// well-behaved client would: it moves the manual clock to the deadline and
// lets the timers fire.
Status WaitsUntilStopped(ManualEnv& env, CallContext& c) {
  env.AdvanceAndFire(c.deadline.Remaining(env.clock.Now()));
  return c.stop.stop_requested() ? Status::Cancelled("stopped") : Status::Ok();
}

TEST(TimeoutTest, CooperativeCallableIsCancelledAtTheDeadline) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(100ms).Build());
  CallContext ctx;
  const TimePoint start = env.clock.Now();
  Status s = p.Execute(ctx, [&](CallContext& c) {
    EXPECT_EQ(c.deadline.time(), start + 100ms);
    env.AdvanceAndFire(100ms - 1ns);
    EXPECT_FALSE(c.stop.stop_requested());
    env.AdvanceAndFire(1ns);
    EXPECT_TRUE(c.stop.stop_requested());
    return Status::Cancelled("saw the stop");
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "timeout");
  EXPECT_EQ(TimeoutAt(*p, 0).timed_out(), 1u);
  EXPECT_EQ(TimeoutAt(*p, 0).abandoned(), 0u);
  EXPECT_TRUE(ctx.deadline.is_infinite());  // the caller's context is restored
}

TEST(TimeoutTest, UncooperativeCallableIsReportedAbandonedWithItsOverrun) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options(&counters)).AddTimeout({.timeout = 100ms, .abandon_after = 10ms}).Build());
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext&) {
    env.AdvanceAndFire(100ms);
    env.AdvanceAndFire(60ms);  // ignores the stop and keeps working
    return Status::Unavailable("late failure");
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(TimeoutAt(*p, 0).abandoned(), 1u);
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kTimedOut, PolicyId::kTimeout), 1u);
  EXPECT_EQ(snap.count(EventKind::kAbandoned, PolicyId::kTimeout, "ignored_stop"), 1u);
  EXPECT_EQ(snap.total(EventKind::kAbandoned, PolicyId::kTimeout), 60ms);
}

TEST(TimeoutTest, LateSuccessIsKeptButCounted) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(100ms).Build());
  CallContext ctx;
  Result<int> r = p.Execute(ctx, [&](CallContext&) -> Result<int> {
    env.AdvanceAndFire(105ms);
    return 42;
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(TimeoutAt(*p, 0).timed_out(), 1u);
  EXPECT_EQ(TimeoutAt(*p, 0).abandoned(), 0u);  // within abandon_after
}

TEST(TimeoutTest, CallFinishingInTimeDisarmsItsTimer) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(100ms).Build());
  CallContext ctx;
  std::stop_token seen;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    seen = c.stop;
    EXPECT_EQ(env.timers->armed(), 1u);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(env.timers->armed(), 0u);
  env.AdvanceAndFire(1s);
  EXPECT_FALSE(seen.stop_requested());
  EXPECT_EQ(TimeoutAt(*p, 0).timed_out(), 0u);
}

TEST(TimeoutTest, CallersOwnStopReachesTheAttempt) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).Build());
  std::stop_source caller;
  CallContext ctx{.stop = caller.get_token()};
  Status s = p.Execute(ctx, [&](CallContext& c) {
    EXPECT_FALSE(c.stop.stop_requested());
    caller.request_stop();  // the caller gives up mid-call
    return c.stop.stop_requested() ? Status::Cancelled("caller left") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_TRUE(ctx.stop.stop_requested());  // the caller's token is back in place
}

TEST(TimeoutTest, CallersStopRequestedBeforeTheCallReachesTheAttemptAtOnce) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).Build());
  std::stop_source caller;
  caller.request_stop();
  CallContext ctx{.stop = caller.get_token()};
  Status s = p.Execute(ctx, [](CallContext& c) {
    return c.stop.stop_requested() ? Status::Cancelled("caller left") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
}

// The usual caller passes no token: nothing links to it, and the attempt
// still gets a token of its own that the timer can stop.
TEST(TimeoutTest, ACallerWithoutATokenStillGetsAStoppableOne) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(100ms).Build());
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    EXPECT_TRUE(c.stop.stop_possible());
    return WaitsUntilStopped(env, c);
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_FALSE(ctx.stop.stop_possible());  // the caller's empty token is back
}

TEST(TimeoutTest, NeverExtendsTheCallersDeadline) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 50ms)};
  const Deadline callers = ctx.deadline;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    EXPECT_EQ(c.deadline, callers);
    return WaitsUntilStopped(env, c);
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(env.clock.Now(), callers.time());
}

TEST(TimeoutTest, AttemptTimeoutCancelsOneAttemptAndRetryTriesAgain) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddRetry({.max_attempts = 3,
                                        .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                                        .idempotent = true})
                             .AddAttemptTimeout(100ms)
                             .Build());
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext& c) { return c.attempt == 1 ? WaitsUntilStopped(env, c) : Status::Ok(); });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(TimeoutAt(*p, 1).timed_out(), 1u);
}

TEST(TimeoutTest, OverallTimeoutEndsTheRetriesWhenItPasses) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddTimeout(250ms)
                             .AddRetry({.max_attempts = 5,
                                        .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                                        .idempotent = true})
                             .AddAttemptTimeout(100ms)
                             .Build());
  CallContext ctx;
  const TimePoint start = env.clock.Now();
  int attempts = 0;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    ++attempts;
    return WaitsUntilStopped(env, c);  // 0-100ms, 110-210ms, 220-250ms
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "timeout");
  EXPECT_EQ(attempts, 3);
  EXPECT_EQ(env.clock.Now(), start + 250ms);
  EXPECT_EQ(TimeoutAt(*p, 0).timed_out(), 1u);
  EXPECT_EQ(TimeoutAt(*p, 2).timed_out(), 3u);
}

TEST(TimeoutTest, NeverStoppedSourcesAreReusedStoppedOnesAreNot) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(100ms).Build());
  CallContext ctx;
  std::stop_token first, second, third;
  p.Execute(ctx, [&](CallContext& c) {
    first = c.stop;
    return Status::Ok();
  });
  p.Execute(ctx, [&](CallContext& c) {
    second = c.stop;
    return WaitsUntilStopped(env, c);  // this one times out: its source is stopped
  });
  p.Execute(ctx, [&](CallContext& c) {
    third = c.stop;
    return Status::Ok();
  });
  EXPECT_EQ(first, second);  // the same pooled source served both
  EXPECT_TRUE(second.stop_requested());
  EXPECT_NE(third, second);
  EXPECT_FALSE(third.stop_requested());
}

TEST(TimeoutTest, CallableThatReplacesItsTokenDoesNotPoisonThePool) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(100ms).Build());
  std::stop_source foreign;
  CallContext ctx;
  p.Execute(ctx, [&](CallContext& c) {
    c.stop = foreign.get_token();
    return Status::Ok();
  });
  EXPECT_FALSE(ctx.stop.stop_possible());  // the caller's (empty) token is back
  foreign.request_stop();
  p.Execute(ctx, [&](CallContext& c) {
    EXPECT_FALSE(c.stop.stop_requested());  // not the foreign token
    return Status::Ok();
  });
}

TEST(TimeoutTest, RealTimerServiceCancelsABlockingWait) {
  PipelineRef p = Unwrap(PipelineBuilder().AddTimeout(20ms).Build());
  CallContext ctx;
  const TimePoint start = Clock::Real().Now();
  Status s = p.Execute(ctx, [](CallContext& c) {
    return testkit::WaitForStop(c.stop) ? Status::Cancelled("stopped") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_GE(Clock::Real().Now() - start, 20ms);
}

TEST(TimeoutTest, RejectsNonPositiveTimeout) {
  EXPECT_THAT(TimeoutOptions{.timeout = 0ms}.Validate(), ::testing::ElementsAre("timeout: must be positive"));
  EXPECT_THAT(TimeoutOptions{.abandon_after = -1ms}.Validate(),
              ::testing::ElementsAre("abandon_after: must not be negative"));
}

}  // namespace
}  // namespace stormguard
