#include "stormguard/guard/time_limiter.h"

#include "stormguard/guard/bulkhead.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "guard/time_limiter_test_util.h"
#include "pipeline/pipeline_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::Async;
using hedge_testing::Get;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::WaitForStop;
using time_limiter_testing::AwaitState;
using time_limiter_testing::Env;

TEST(TimeLimiterTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((TimeLimiterOptions{.timeout = 0ns, .max_detached = 0}.Validate()),
              ElementsAre("timeout: must be positive", "max_detached: must be at least 1"));
  auto ex = Executor::Create({}).value();
  auto limiter = TimeLimiter::Create({.timeout = -1s, .max_detached = -3}, *ex);
  ASSERT_FALSE(limiter.ok());
  EXPECT_EQ(limiter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(limiter.status().message(), HasSubstr("timeout"));
  EXPECT_THAT(limiter.status().message(), HasSubstr("max_detached"));
}

TEST(TimeLimiterTest, ReturnsTheWorksResultWhenItEndsInTime) {
  Env e({.timeout = 1s});
  CallContext ctx{.attempt = 2, .idempotency_key = "order-7"};
  Result<int> r = e.limiter->Run(ctx, [&e](CallContext& c) -> Result<int> {
    EXPECT_EQ(CurrentCallContext(), &c);  // the worker's current context is the work's copy
    EXPECT_EQ(c.deadline.time(), e.start + 1s);
    EXPECT_EQ(c.attempt, 2);
    EXPECT_EQ(c.idempotency_key, "order-7");
    return 42;
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(e.limiter->stats().running, 0);  // the slot is free before the caller wakes
  Status failed = e.limiter->Run(ctx, [](CallContext&) { return Status::Unavailable("down"); });
  EXPECT_EQ(failed.code(), StatusCode::kUnavailable);
  EXPECT_EQ(e.clock.Now(), e.start);
  EXPECT_TRUE(e.log.Names().empty());  // the success path reports nothing
}

TEST(TimeLimiterTest, AnExceptionFromTheWorkBecomesItsStatus) {
  Env e;
  CallContext ctx;
  Status s = e.limiter->Run(ctx, [](CallContext&) -> Status { throw std::runtime_error("sdk blew up"); });
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("sdk blew up"));
}

TEST(TimeLimiterTest, ReturnsDeadlineExceededAtTheDeadlineWhileTheWorkStillRuns) {
  Env e({.timeout = 100ms});
  Status s = e.AbandonAStuckCall(100ms);  // returned although the work is still blocked
  EXPECT_EQ(e.clock.Now(), e.start + 100ms);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "time_limiter");
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kAmbiguous);
  const TimeLimiterStats st = e.limiter->stats();
  EXPECT_EQ(st.running, 1);
  EXPECT_EQ(st.abandoned, 1);
  EXPECT_EQ(st.timed_out, 1);
  EXPECT_THAT(e.log.Names(), ElementsAre("timed_out:deadline", "abandoned:timed_out"));
  e.gate.Open();
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));
  EXPECT_EQ(e.limiter->stats().running, 0);
}

// The caller's deadline is a timer on the executor's TimerService: moving
// the clock answers nobody until that service fires it.
TEST(TimeLimiterTest, TheDeadlineIsATimerOnTheExecutorsTimerService) {
  Env e({.timeout = 100ms});
  auto call = Async([&e] {
    CallContext ctx;
    return e.limiter->Run(ctx, e.Stuck());
  });
  e.started.WaitFor(1);
  EXPECT_EQ(e.timers->armed(), 1u);
  e.clock.Advance(100ms);
  EXPECT_EQ(e.timers->RunDue(), 1u);
  EXPECT_EQ(Get(call).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(e.timers->armed(), 0u);
}

TEST(TimeLimiterTest, TheWorksStopFiresAtItsDeadline) {
  Env e({.timeout = 100ms});
  std::atomic<std::int64_t> stopped_at{0}, deadline{0};
  auto call = Async([&] {
    CallContext ctx{.deadline = Deadline::At(e.start + 50ms)};  // tighter than the timeout
    return e.limiter->Run(ctx, [&](CallContext& c) {
      deadline = c.deadline.time().time_since_epoch().count();
      e.started.Arrive();
      EXPECT_TRUE(WaitForStop(c.stop));
      stopped_at = e.clock.Now().time_since_epoch().count();
      return Status::Cancelled("saw the stop");
    });
  });
  e.started.WaitFor(1);
  e.Advance(50ms);
  EXPECT_EQ(Get(call).code(), StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));
  EXPECT_EQ(TimePoint(Duration(deadline.load())), e.start + 50ms);
  EXPECT_EQ(TimePoint(Duration(stopped_at.load())), e.start + 50ms);
  const Event end = e.log.Last(EventKind::kAttemptEnded);
  EXPECT_EQ(end.reason, "abandoned_work_ended");
  EXPECT_EQ(end.outcome, OutcomeClass::kCancelled);  // the work's own outcome
  EXPECT_EQ(end.duration, 0ns);                      // it ended at once when told
}

TEST(TimeLimiterTest, CallerStopAnswersCancelledAtOnceAndStopsTheWork) {
  Env e({.timeout = 100ms});
  std::stop_source caller;
  auto call = Async([&] {
    CallContext ctx{.stop = caller.get_token()};
    return e.limiter->Run(ctx, [&e](CallContext& c) {
      e.started.Arrive();
      return WaitForStop(c.stop) ? Status::Cancelled("stopped") : Status::Ok();
    });
  });
  e.started.WaitFor(1);
  caller.request_stop();
  Status s = Get(call);
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_EQ(s.source(), "time_limiter");
  EXPECT_EQ(e.clock.Now(), e.start);                             // no time passed
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));  // the work saw its stop and ended
  EXPECT_EQ(e.limiter->stats().cancelled, 1);
  EXPECT_THAT(e.log.Names(), ElementsAre("abandoned:cancelled", "attempt_ended:abandoned_work_ended"));
}

TEST(TimeLimiterTest, AbandonedWorkHoldsItsSlotUntilItEnds) {
  Env e({.timeout = 100ms, .max_detached = 1});
  EXPECT_EQ(e.AbandonAStuckCall(100ms).code(), StatusCode::kDeadlineExceeded);

  CallContext ctx;
  auto quick = [](CallContext&) { return Status::Ok(); };
  Status refused = e.limiter->Run(ctx, quick);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.source(), "time_limiter");
  EXPECT_THAT(refused.message(), HasSubstr("time_limiter full: 1 calls running, 1 of them abandoned"));
  TimeLimiterStats st = e.limiter->stats();
  EXPECT_EQ(st.running, 1);
  EXPECT_EQ(st.abandoned, 1);
  EXPECT_EQ(st.abandoned_total, 1);
  EXPECT_EQ(st.rejected, 1);

  e.Advance(30ms);
  e.gate.Open();
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));
  st = e.limiter->stats();
  EXPECT_EQ(st.running, 0);
  EXPECT_EQ(st.abandoned, 0);
  EXPECT_EQ(e.log.Last(EventKind::kAttemptEnded).duration, 30ms);  // it ran on 30ms after its caller left
  EXPECT_TRUE(e.limiter->Run(ctx, quick).ok());                    // the slot is back
  EXPECT_THAT(e.log.Names(), ElementsAre("timed_out:deadline", "abandoned:timed_out", "rejected:full",
                                         "attempt_ended:abandoned_work_ended"));
}

// A bound shared with synchronous callers: the work owns a Bulkhead permit
// (a move-only capture), so abandoned work keeps it until it really ends.
TEST(TimeLimiterTest, APermitTheWorkOwnsIsHeldUntilTheWorkEnds) {
  Env e({.timeout = 100ms});
  auto bulkhead = Bulkhead::Create({.max_concurrent = 1}).value();
  auto call = Async([&] {
    CallContext ctx;
    BulkheadPermit permit = std::move(bulkhead->TryAcquire(e.start)).value();
    return e.limiter->Run(ctx, [&e, permit = std::move(permit)](CallContext&) {
      e.started.Arrive();
      e.gate.Wait({});
      return Status::Ok();
    });
  });
  e.started.WaitFor(1);
  e.Advance(100ms);
  EXPECT_EQ(Get(call).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(bulkhead->stats().in_use, 1);  // the caller left; its work has not
  e.gate.Open();
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));
  EXPECT_EQ(bulkhead->stats().in_use, 0);  // released before the end was reported
}

TEST(TimeLimiterTest, InfiniteTimeoutWaitsForTheWorkWhenTheCallHasNoDeadline) {
  Env e({.timeout = kInfiniteDuration});
  auto call = Async([&e] {
    CallContext ctx;
    return e.limiter->Run(ctx, [&e](CallContext& c) {
      EXPECT_TRUE(c.deadline.is_infinite());
      return e.Stuck()(c);
    });
  });
  e.started.WaitFor(1);
  e.Advance(24h);
  e.gate.Open();
  EXPECT_TRUE(Get(call).ok());
  EXPECT_EQ(e.limiter->stats().abandoned_total, 0);
}

TEST(TimeLimiterTest, RefusesWhenTheExecutorQueueIsFullAndGivesTheSlotBack) {
  Env e({.max_detached = 4}, {.threads = 1, .queue_capacity = 1});
  e.OccupyTheWorker();
  ASSERT_TRUE(e.executor->TrySubmit([] {}));  // the queue is full
  CallContext ctx;
  Status s = e.limiter->Run(ctx, [](CallContext&) { return Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.source(), "time_limiter");
  EXPECT_THAT(s.message(), HasSubstr("queue is full"));
  EXPECT_EQ(e.limiter->stats().running, 0);
  EXPECT_EQ(e.limiter->stats().rejected, 1);
  EXPECT_THAT(e.log.Names(), ElementsAre("rejected:executor_full"));
}

TEST(TimeLimiterTest, ExpiredDeadlineIsRefusedWithoutSubmitting) {
  Env e;
  CallContext ctx{.deadline = Deadline::At(e.start)};
  Status s = e.limiter->Run(ctx, [](CallContext&) { return Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "time_limiter");
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kDeadlineExceeded);  // it never ran: not ambiguous
  EXPECT_EQ(e.executor->submitted(), 0u);
  EXPECT_THAT(e.log.Names(), ElementsAre("rejected:deadline_expired"));
}

TEST(TimeLimiterTest, StoppedCallerIsAnsweredWithoutSubmitting) {
  Env e;
  std::stop_source caller;
  caller.request_stop();
  CallContext ctx{.stop = caller.get_token()};
  EXPECT_EQ(e.limiter->Run(ctx, [](CallContext&) { return Status::Ok(); }).code(), StatusCode::kCancelled);
  EXPECT_EQ(e.executor->submitted(), 0u);
}

TEST(TimeLimiterTest, QueuedWorkWhoseCallerLeftNeverStarts) {
  Env e({.timeout = 100ms}, {.threads = 1});
  e.OccupyTheWorker();
  std::atomic<bool> ran{false};
  auto call = Async([&] {
    CallContext ctx;
    return e.limiter->Run(ctx, [&ran](CallContext&) {
      ran = true;
      return Status::Ok();
    });
  });
  AwaitState([&e] { return e.executor->submitted() == 2; }, "the call's submission");
  e.Advance(100ms);
  EXPECT_EQ(Get(call).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(e.limiter->stats().abandoned, 1);  // queued, yet holding its slot
  e.gate.Open();
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));
  EXPECT_FALSE(ran);
  EXPECT_EQ(e.log.Last(EventKind::kAttemptEnded).reason, "abandoned_work_skipped");
  EXPECT_EQ(e.limiter->stats().running, 0);
}

TEST(TimeLimiterTest, MayBeDestroyedWhileAbandonedWorkStillRuns) {
  Env e({.timeout = 100ms});
  EXPECT_EQ(e.AbandonAStuckCall(100ms).code(), StatusCode::kDeadlineExceeded);
  e.limiter.reset();  // the abandoned call keeps the counters it reports to alive
  e.gate.Open();
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 1));
  EXPECT_EQ(e.log.Last(EventKind::kAttemptEnded).reason, "abandoned_work_ended");
}

// The work moves the clock to the deadline and returns: the caller may wake
// by the time or by the work. Either answer must be consistent.
TEST(TimeLimiterTest, WorkEndingAtTheDeadlineGetsOneConsistentAnswer) {
  Env e({.timeout = 10ms});
  int abandoned = 0;
  for (int i = 0; i < 50; ++i) {
    CallContext ctx;
    Status s = e.limiter->Run(ctx, [&e](CallContext&) {
      e.Advance(10ms);
      return Status::Ok();
    });
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
      ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, ++abandoned));
    }
    EXPECT_EQ(e.limiter->stats().running, 0);
    EXPECT_EQ(e.limiter->stats().abandoned_total, abandoned);
  }
  EXPECT_EQ(e.log.Count(EventKind::kTimedOut), abandoned);
}

}  // namespace
}  // namespace stormguard
