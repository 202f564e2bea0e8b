// The TimeLimiter as a pipeline's callable, and under concurrent use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "core/thread_test_util.h"
#include "guard/time_limiter_test_util.h"
#include "pipeline/pipeline_test_util.h"
#include "stormguard/guard/time_limiter.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::Async;
using hedge_testing::Get;
using testkit::Unwrap;
using testkit::WaitForStop;
using time_limiter_testing::Env;

// A retry around a detached timeout: each retry leaves the previous attempt
// running, so max_detached bounds the pile-up, and the attempt that finds
// every slot taken is refused, naming the limiter.
TEST(TimeLimiterPipelineTest, RetriesAfterADetachedTimeoutPileUpOnlyToMaxDetached) {
  Env e({.timeout = 100ms, .max_detached = 2});
  PipelineRef p = Unwrap(PipelineBuilder({.clock = &e.clock})
                             .AddRetry({.max_attempts = 3,
                                        .backoff = {.kind = BackoffKind::kConstant, .base = 0ms, .cap = 1ms},
                                        .idempotent = true})
                             .Build());
  auto call = Async([&] {
    CallContext ctx;
    return p.Execute(ctx, [&](CallContext& c) { return e.limiter->Run(c, e.Stuck()); });
  });
  e.started.WaitFor(1);
  e.Advance(100ms);  // attempt 1 times out; its work runs on
  e.started.WaitFor(2);
  e.Advance(100ms);  // attempt 2 too; attempt 3 finds both slots taken
  Status s = Get(call);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.source(), "time_limiter");
  TimeLimiterStats st = e.limiter->stats();
  EXPECT_EQ(st.running, 2);
  EXPECT_EQ(st.abandoned, 2);
  EXPECT_EQ(st.timed_out, 2);
  EXPECT_EQ(st.rejected, 1);
  EXPECT_EQ(e.log.Last(EventKind::kRejected).attempt, 3);

  e.gate.Open();
  ASSERT_TRUE(e.log.WaitForCount(EventKind::kAttemptEnded, 2));
  st = e.limiter->stats();
  EXPECT_EQ(st.running, 0);
  EXPECT_EQ(st.abandoned, 0);
  EXPECT_EQ(st.abandoned_total, 2);
}

TEST(TimeLimiterPipelineTest, AWorkThatEndsInTimeGivesThePipelineItsValue) {
  Env e;
  PipelineRef p = Unwrap(PipelineBuilder({.clock = &e.clock}).AddRetry({.max_attempts = 2}).Build());
  CallContext ctx;
  Result<int> r =
      p.Execute(ctx, [&](CallContext& c) { return e.limiter->Run(c, [](CallContext&) -> Result<int> { return 7; }); });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 7);
}

// Callers on three threads mix work that returns at once, work that waits
// for its stop, and work that cancels its own caller, while another thread
// moves the clock and fires the deadlines due (a refused caller waits for
// the clock to move). Run once under -DSTORMGUARD_SANITIZE=thread.
TEST(TimeLimiterPipelineTest, StressKeepsTheSlotAccountingExact) {
  constexpr int kThreads = 3;
  constexpr int kCalls = 150;
  Env e({.timeout = 5ms, .max_detached = 4}, {.threads = 2, .queue_capacity = 8});
  std::atomic<bool> done{false};
  std::thread ticker([&] {
    while (!done.load()) {
      e.Advance(1ms);
      std::this_thread::yield();
    }
  });
  std::atomic<int> answered{0};
  testkit::RunConcurrently(kThreads, [&](int t) {
    for (int i = 0; i < kCalls; ++i) {
      auto caller = std::make_shared<std::stop_source>();
      CallContext ctx{.stop = caller->get_token()};
      Status s;
      switch ((t + i) % 3) {
        case 0: s = e.limiter->Run(ctx, [](CallContext&) { return Status::Ok(); }); break;
        case 1:
          s = e.limiter->Run(ctx, [](CallContext& c) {
            return WaitForStop(c.stop) ? Status::Cancelled("stopped") : Status::Ok();
          });
          break;
        default:
          s = e.limiter->Run(ctx, [caller](CallContext&) {
            caller->request_stop();
            return Status::Ok();
          });
      }
      const StatusCode code = s.code();
      EXPECT_TRUE(code == StatusCode::kOk || code == StatusCode::kCancelled || code == StatusCode::kDeadlineExceeded ||
                  code == StatusCode::kResourceExhausted)
          << s.ToString();
      answered.fetch_add(1);
      if (code == StatusCode::kResourceExhausted) e.clock.SleepFor(1ms, {});  // let slots free up
    }
  });
  done = true;
  ticker.join();
  e.executor->Shutdown();  // every accepted task has run
  const TimeLimiterStats st = e.limiter->stats();
  EXPECT_EQ(answered.load(), kThreads * kCalls);
  EXPECT_EQ(st.running, 0);
  EXPECT_EQ(st.abandoned, 0);
  EXPECT_EQ(e.log.Count(EventKind::kAbandoned), st.abandoned_total);
  EXPECT_EQ(e.log.Count(EventKind::kAttemptEnded), st.abandoned_total);  // each abandoned work ended once
  EXPECT_EQ(e.log.Count(EventKind::kTimedOut), st.timed_out);
}

}  // namespace
}  // namespace stormguard
