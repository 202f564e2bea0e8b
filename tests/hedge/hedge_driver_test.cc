#include "stormguard/hedge/hedge_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hedge/hedge_test_util.h"
#include "testkit/recording_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::Async;
using hedge_testing::AwaitState;
using hedge_testing::Checkpoint;
using hedge_testing::CountingBudget;
using hedge_testing::Gate;
using hedge_testing::Get;
using hedge_testing::Idempotent;
using hedge_testing::kBound;
using hedge_testing::Make;
using ::testing::ElementsAre;
using testkit::RecordingListener;

// Time moves only when a test says so, and the executor's timers have no
// thread of their own: Advance fires what is due on the test's thread, so
// hedges launch exactly when the test moves past a delay.
struct Harness {
  ManualClock clock{TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep};
  std::shared_ptr<TimerService> timers = TimerService::Create(clock, {.background_thread = false}).value();
  std::shared_ptr<Executor> ex = Executor::Create({.threads = 2, .timers = timers.get()}).value();
  const TimePoint t0 = clock.Now();

  void Advance(Duration d) {
    clock.Advance(d);
    timers->RunDue();
  }
};

TEST(HedgeDriverTest, FirstGoodAnswerWinsAndEveryLoserIsCancelled) {
  Harness h;
  const HedgePolicy p = Make(Idempotent(10ms, 2));
  Gate never;
  Checkpoint started;
  std::atomic<bool> saw_stop[2] = {false, false};
  std::mutex mu;
  std::vector<CallContext> seen;
  CallContext ctx{.deadline = Deadline::After(h.t0, 1s), .idempotency_key = "k-1"};
  HedgeRun run;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) -> Result<int> {
          {
            std::lock_guard lock(mu);
            seen.push_back(a);
          }
          if (a.attempt == 3) return 42;
          started.Arrive();
          saw_stop[a.attempt - 1] = never.Wait(a.stop);
          return Status::Cancelled("lost");
        },
        *h.ex, &run);
  });
  started.WaitFor(1);
  h.Advance(10ms);  // the first hedge starts and hangs too
  started.WaitFor(2);
  h.Advance(10ms);  // the second hedge answers
  Result<int> r = Get(call);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_TRUE(saw_stop[0]);
  EXPECT_TRUE(saw_stop[1]);
  EXPECT_EQ(run.attempts, 3);
  EXPECT_EQ(run.winner, 3);
  EXPECT_EQ(run.cancelled, 2);
  ASSERT_EQ(seen.size(), 3u);
  for (std::size_t i = 0; i < seen.size(); ++i) {  // one logical operation, separate attempts
    EXPECT_EQ(seen[i].attempt, static_cast<int>(i) + 1);
    EXPECT_EQ(seen[i].deadline, ctx.deadline);
    EXPECT_EQ(seen[i].idempotency_key, "k-1");
  }
  EXPECT_NE(seen[0].stop, seen[1].stop);
  EXPECT_NE(seen[1].stop, seen[2].stop);
  EXPECT_EQ(ctx.attempt, 1);  // the caller's context is untouched
}

TEST(HedgeDriverTest, ALoserThatIgnoresItsStopTokenHoldsTheReturnUntilItEnds) {
  Harness h;
  RecordingListener listener;
  const HedgePolicy p = Make(Idempotent(10ms, 1, &listener));
  Gate gate;
  Checkpoint primary;
  CallContext ctx;
  HedgeRun run;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) {
          if (a.attempt == 2) return Status::Ok();
          primary.Arrive();
          gate.Wait({});  // deaf to a.stop: keeps using the caller's stack
          return Status::Ok();
        },
        *h.ex, &run);
  });
  primary.WaitFor(1);
  h.Advance(10ms);
  ASSERT_TRUE(listener.WaitForCount(EventKind::kAttemptEnded, 1));  // the hedge answered at t0 + 10 ms
  EXPECT_EQ(call.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  h.Advance(5ms);
  gate.Open();
  EXPECT_TRUE(Get(call).ok());
  EXPECT_EQ(run.winner, 2);
  EXPECT_EQ(run.cancelled, 1);
  EXPECT_EQ(run.loser_wait, 5ms);
}

TEST(HedgeDriverTest, HedgeLaunchesOnlyAfterTheDelay) {
  Harness h;
  RecordingListener listener;
  const HedgePolicy p = Make(Idempotent(10ms, 1, &listener));
  Gate never;
  Checkpoint primary, hedge;
  std::atomic<Duration::rep> hedge_started_at{0};
  CallContext ctx;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) -> Result<int> {
          if (a.attempt == 2) {
            hedge_started_at = h.clock.Now().time_since_epoch().count();
            hedge.Arrive();
            return 7;
          }
          primary.Arrive();
          never.Wait(a.stop);
          return Status::Cancelled("lost");
        },
        *h.ex);
  });
  primary.WaitFor(1);
  EXPECT_EQ(h.timers->armed(), 1u);  // the delay is a timer on the executor's TimerService
  h.Advance(9ms);
  EXPECT_EQ(hedge.count(), 0);
  EXPECT_EQ(h.ex->submitted(), 0u);
  h.Advance(1ms);
  hedge.WaitFor(1);
  EXPECT_EQ(*Get(call), 7);
  EXPECT_EQ(h.timers->armed(), 0u);
  EXPECT_EQ(hedge_started_at.load(), (h.t0 + 10ms).time_since_epoch().count());
  const auto launches = listener.Of(EventKind::kHedgeLaunched);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].at, h.t0 + 10ms);
  EXPECT_EQ(launches[0].duration, 10ms);
}

// The delay's timer starts firing while the primary's answer ends the call
// under the driver's lock, which the firing callback waits for: the driver
// must not wait for the callback there (a deadlock), nor end the call before
// the callback let go of it.
TEST(HedgeDriverTest, TheDelayFiringAsThePrimaryAnswersNeitherDeadlocksNorOutlivesTheCall) {
  Harness h;
  // Reports come under the driver's lock: when the primary's end is
  // reported, another thread fires the due timer, which then waits for the lock.
  struct FireOnPrimaryEnd final : Listener {
    TimerService* timers = nullptr;
    std::jthread firing;
    void OnEvent(const Event& e) noexcept override {
      if (e.kind != EventKind::kAttemptEnded || e.attempt != 1) return;
      firing = std::jthread([t = timers] { t->RunDue(); });
      AwaitState([t = timers] { return t->armed() == 0; }, "the timer's firing");
    }
  } listener;
  listener.timers = h.timers.get();
  const HedgePolicy p = Make(Idempotent(10ms, 1, &listener));
  Gate answer;
  Checkpoint primary;
  CallContext ctx;
  HedgeRun run;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext&) -> Result<int> {
          primary.Arrive();
          answer.Wait({});
          return 1;
        },
        *h.ex, &run);
  });
  primary.WaitFor(1);
  h.clock.Advance(10ms);  // due, not fired yet
  answer.Open();
  const Result<int> r = Get(call);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1);
  EXPECT_EQ(run.attempts, 1);  // the timer found the call answered: no hedge
  listener.firing.join();
  EXPECT_EQ(h.timers->armed(), 0u);
}

TEST(HedgeDriverTest, NonFatalFailureLaunchesTheNextHedgeAtOnce) {
  Harness h;
  const HedgePolicy p = Make(Idempotent(1h));
  CallContext ctx;
  HedgeRun run;
  Result<int> r = ExecuteHedged(
      p, ctx,
      [](CallContext& a) -> Result<int> {
        if (a.attempt == 1) return Status::Unavailable("replica restarting");
        return 5;
      },
      *h.ex, &run);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 5);
  EXPECT_EQ(run.attempts, 2);
  EXPECT_EQ(run.winner, 2);
  EXPECT_EQ(h.clock.Now(), h.t0);  // no time passed: the delay was skipped
}

TEST(HedgeDriverTest, PushbackOnANonFatalFailureDelaysTheNextHedge) {
  Harness h;
  RecordingListener listener;
  // Hedges only after failures: the one timer armed is the pushback's.
  const HedgePolicy p = Make(Idempotent(kInfiniteDuration, 1, &listener));
  Checkpoint hedge;
  CallContext ctx;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) {
          if (a.attempt == 1) return Status::Unavailable("busy").WithHints({.pushback = 20ms});
          hedge.Arrive();
          return Status::Ok();
        },
        *h.ex);
  });
  // The primary failed at t0; the hedge waits for the pushback instead of
  // going at once.
  AwaitState([&h] { return h.timers->armed() == 1; }, "the pushback's timer");
  h.Advance(19ms);
  EXPECT_EQ(hedge.count(), 0);
  h.Advance(1ms);
  EXPECT_TRUE(Get(call).ok());
  EXPECT_EQ(hedge.count(), 1);
}

TEST(HedgeDriverTest, MaxHedgedAttemptsAreRespected) {
  Harness h;
  const HedgePolicy p = Make(Idempotent(Duration::zero(), 2));
  std::atomic<int> calls{0};
  CallContext ctx;
  HedgeRun run;
  Status s = ExecuteHedged(
      p, ctx,
      [&](CallContext&) {
        ++calls;
        return Status::Unavailable("down");
      },
      *h.ex, &run);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(run.attempts, 3);
  EXPECT_EQ(run.winner, 0);  // all failed: the last failure is returned
  EXPECT_EQ(run.stop, HedgeStop::kAttemptsExhausted);
  EXPECT_TRUE(s.hints().do_not_retry);  // this layer gave up for the chain
  EXPECT_TRUE(ctx.downstream_gave_up);
}

TEST(HedgeDriverTest, BudgetRefusalPreventsADelayedHedge) {
  Harness h;
  auto budget = std::make_shared<CountingBudget>(0);
  HedgeOptions o = Idempotent(10ms);
  o.budget = budget;
  const HedgePolicy p = Make(o);
  Gate gate;
  Checkpoint primary;
  CallContext ctx;
  HedgeRun run;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) {
          primary.Arrive();
          gate.Wait(a.stop);
          return Status::Ok();
        },
        *h.ex, &run);
  });
  primary.WaitFor(1);
  h.Advance(10ms);
  budget->refusals.WaitFor(1);  // the hedge was due and refused
  gate.Open();
  EXPECT_TRUE(Get(call).ok());
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(run.stop, HedgeStop::kBudgetExhausted);
  EXPECT_EQ(h.ex->submitted(), 0u);
  EXPECT_EQ(budget->starts, 1);
  EXPECT_EQ(budget->successes, 1);
  EXPECT_EQ(budget->ends, 1);
}

TEST(HedgeDriverTest, BudgetRefusalAfterAFailureReturnsTheFailureMarkedForTheChain) {
  Harness h;
  auto budget = std::make_shared<CountingBudget>(0);
  HedgeOptions o = Idempotent(1h);
  o.budget = budget;
  CallContext ctx;
  HedgeRun run;
  Status s = ExecuteHedged(
      Make(o), ctx, [](CallContext&) { return Status::Unavailable("down"); }, *h.ex, &run);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(run.stop, HedgeStop::kBudgetExhausted);
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_EQ(budget->failures, 1);
}

TEST(HedgeDriverTest, NonIdempotentCallIsNeverHedged) {
  Harness h;
  const HedgePolicy p = Make(HedgeOptions{.delay = Duration::zero(), .idempotent = false});
  std::atomic<int> calls{0};
  auto fn = [&](CallContext&) {
    ++calls;
    EXPECT_EQ(h.timers->armed(), 0u);  // no delay to wait for
    return Status::Unavailable("down");
  };
  CallContext ctx;
  HedgeRun run;
  Status s = ExecuteHedged(p, ctx, fn, *h.ex, &run);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(run.stop, HedgeStop::kNotIdempotent);
  EXPECT_FALSE(s.hints().do_not_retry);  // nothing was tried: a retry above may still help
  EXPECT_EQ(h.ex->submitted(), 0u);

  CallContext keyed{.idempotency_key = "pay-91"};  // the callee deduplicates: safe to hedge
  ExecuteHedged(p, keyed, fn, *h.ex, &run);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(run.attempts, 2);
}

TEST(HedgeDriverTest, PercentileDelayFollowsObservedLatencies) {
  Harness h;
  auto tracker = LatencyTracker::Create({.window = 10s, .slices = 5, .min_samples = 20}).value();
  for (int i = 0; i < 100; ++i) tracker->Record(40ms, h.clock.Now());
  HedgeOptions o = Idempotent(1s);  // only until the tracker knows better
  o.latency = tracker;
  o.delay_refresh = Duration::zero();
  const HedgePolicy p = Make(o);
  const Duration p95 = LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(40ms));
  Gate never;
  Checkpoint primary, hedge;
  CallContext ctx;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) {
          if (a.attempt == 2) {
            hedge.Arrive();
            return Status::Ok();
          }
          primary.Arrive();
          never.Wait(a.stop);
          return Status::Cancelled("lost");
        },
        *h.ex);
  });
  primary.WaitFor(1);
  h.Advance(p95 - Duration(1));
  EXPECT_EQ(hedge.count(), 0);
  h.Advance(Duration(1));
  EXPECT_TRUE(Get(call).ok());
  EXPECT_EQ(hedge.count(), 1);
  // The winner is recorded, and so is the slower primary (at p95, a lower bound).
  EXPECT_EQ(tracker->Count(h.clock.Now()), 102);
}

TEST(HedgeDriverTest, NoHedgeWhenTheDeadlineCannotFitIt) {
  Harness h;
  const HedgePolicy p = Make(Idempotent(100ms));
  CallContext ctx{.deadline = Deadline::After(h.t0, 50ms)};
  HedgeRun run;
  Status s = ExecuteHedged(
      p, ctx,
      [&](CallContext&) {
        EXPECT_EQ(h.timers->armed(), 0u);  // no hedge to wait for
        h.Advance(60ms);                   // slow, but no hedge could start before the deadline
        return Status::Ok();
      },
      *h.ex, &run);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(run.stop, HedgeStop::kDeadline);
}

TEST(HedgeDriverTest, ACallWithExactlyTheMinimumAttemptTimeLeftStillHedges) {
  Harness h;
  HedgeOptions o = Idempotent(1h);
  o.min_attempt_time = 30ms;
  const HedgePolicy p = Make(o);
  const auto fn = [](CallContext& a) -> Result<int> {
    if (a.attempt == 1) return Status::Unavailable("replica restarting");
    return 5;
  };
  // The per-call check and the hedge after the failure both see 30 ms left.
  CallContext exact{.deadline = Deadline::After(h.t0, 30ms)};
  HedgeRun run;
  const Result<int> r = ExecuteHedged(p, exact, fn, *h.ex, &run);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 5);
  EXPECT_EQ(run.attempts, 2);
  EXPECT_EQ(run.winner, 2);

  CallContext short_by_1ns{.deadline = Deadline::After(h.t0, 30ms - Duration(1))};
  EXPECT_EQ(ExecuteHedged(p, short_by_1ns, fn, *h.ex, &run).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(run.stop, HedgeStop::kDeadline);
}

TEST(HedgeDriverTest, CallerCancellationReachesEveryAttempt) {
  Harness h;
  const HedgePolicy p = Make(Idempotent(10ms));
  std::stop_source caller;
  Gate never;
  Checkpoint started;
  std::atomic<int> stopped{0};
  CallContext ctx{.stop = caller.get_token()};
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) {
          started.Arrive();
          if (never.Wait(a.stop)) ++stopped;
          return Status::Cancelled("caller left");
        },
        *h.ex);
  });
  started.WaitFor(1);
  h.Advance(10ms);
  started.WaitFor(2);
  caller.request_stop();
  EXPECT_EQ(Get(call).code(), StatusCode::kCancelled);
  EXPECT_EQ(stopped, 2);
}

TEST(HedgeDriverTest, FatalFailureEndsTheCallAndCancelsTheOthers) {
  Harness h;
  const HedgePolicy p = Make(Idempotent(10ms));
  Gate never;
  Checkpoint primary;
  std::atomic<bool> primary_stopped{false};
  CallContext ctx;
  HedgeRun run;
  auto call = Async([&] {
    return ExecuteHedged(
        p, ctx,
        [&](CallContext& a) {
          if (a.attempt == 2) return Status::NotFound("no such order");
          primary.Arrive();
          primary_stopped = never.Wait(a.stop);
          return Status::Cancelled("lost");
        },
        *h.ex, &run);
  });
  primary.WaitFor(1);
  h.Advance(10ms);
  Status s = Get(call);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(primary_stopped);
  EXPECT_EQ(run.stop, HedgeStop::kFatal);
  EXPECT_FALSE(s.hints().do_not_retry);
}

TEST(HedgeDriverTest, ExceptionThrownByAHedgeIsCaughtAndClassified) {
  Harness h;
  HedgeRun run;
  CallContext ctx;
  Status s = ExecuteHedged(
      Make(Idempotent(1h)), ctx,
      [](CallContext& a) -> Status {
        if (a.attempt == 1) return Status::Unavailable("down");
        throw std::runtime_error("connection reset mid-response");
      },
      *h.ex, &run);
  EXPECT_EQ(s.code(), StatusCode::kUnknown);  // ambiguous: fatal by default
  EXPECT_EQ(run.winner, 2);
}

TEST(HedgeDriverTest, EventsAndBudgetFollowTheProtocol) {
  Harness h;
  RecordingListener listener;
  auto budget = std::make_shared<CountingBudget>(5);
  HedgeOptions o = Idempotent(1h);
  o.listener = &listener;
  o.budget = budget;
  CallContext ctx;
  ExecuteHedged(
      Make(o), ctx, [](CallContext&) { return Status::Unavailable("down"); }, *h.ex);
  EXPECT_THAT(listener.Log(),
              ElementsAre("attempt_ended:1", "hedge_launched:2", "attempt_ended:2", "gave_up:1:attempts_exhausted"));
  EXPECT_EQ(budget->starts, 1);
  EXPECT_EQ(budget->failures, 2);
  EXPECT_EQ(budget->acquired, 1);
  EXPECT_EQ(budget->retry_ends, 1);
  EXPECT_EQ(budget->ends, 1);
}

}  // namespace
}  // namespace stormguard
