// AsioTimers and the io_context's outstanding work: a queued wait keeps
// run() going, the one armed Asio wait never does.
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>

#include "async_test_util.h"
#include "stormguard/asio/asio_timers.h"
#include "stormguard/asio/coroutine_driver.h"
#include "virtual_time.h"

namespace stormguard::testkit {
namespace {
using namespace std::chrono_literals;

void CountFired(void* arg) noexcept { ++*static_cast<int*>(arg); }

struct WorkEnv {
  ManualClock clock;
  UseVirtualClock use{clock};
  asio::io_context io;
  VirtualTimers timers{io.get_executor(), clock};

  void Advance(Duration d) {
    clock.Advance(d);
    io.poll();
  }
};

TEST(AsioTimersWorkTest, TheContextRunsOutOfWorkWhenTheLastWaitIsCancelledThoughTheWaitStaysArmed) {
  WorkEnv env;
  int fired = 0;
  AsyncTimerHandle h = env.timers.Schedule(env.clock.Now() + 1s, &CountFired, &fired);
  env.io.poll();
  EXPECT_FALSE(env.io.stopped());
  EXPECT_TRUE(env.timers.Cancel(h));
  EXPECT_TRUE(env.io.stopped());
  EXPECT_EQ(env.timers.arms(), 1u);  // still armed, and no work
  EXPECT_EQ(fired, 0);
}

TEST(AsioTimersWorkTest, TheContextRunsOutOfWorkWhenTheLastWaitHasFired) {
  WorkEnv env;
  int fired = 0;
  env.timers.Schedule(env.clock.Now() + 10ms, &CountFired, &fired);
  AsyncTimerHandle later = env.timers.Schedule(env.clock.Now() + 1s, &CountFired, &fired);
  EXPECT_TRUE(env.timers.Cancel(later));
  env.Advance(10ms);
  EXPECT_EQ(fired, 1);
  EXPECT_TRUE(env.io.stopped());
}

// A plain callback call (no coroutine and no work guard of its own) keeps
// the context running through its wait.
TEST(AsioTimersWorkTest, AQueuedWaitKeepsTheContextRunningUntilItFires) {
  WorkEnv env;
  int fired = 0;
  env.timers.Schedule(env.clock.Now() + 10ms, &CountFired, &fired);
  for (int i = 0; i < 9; ++i) {
    env.Advance(1ms);
    EXPECT_FALSE(env.io.stopped()) << "at " << i + 1 << " ms";
  }
  EXPECT_EQ(fired, 0);
  env.Advance(1ms);
  EXPECT_EQ(fired, 1);
  EXPECT_TRUE(env.io.stopped());
}

// Re-arms (each aborting a wait), wakes that find nothing due, and waits
// left in the queue across them: the count of work comes back to exactly
// none, neither early (the context would stop with a wait queued) nor late.
TEST(AsioTimersWorkTest, ReArmsAndEmptyWakesLeaveTheWorkCountBalanced) {
  WorkEnv env;
  int fired = 0;
  AsyncTimerHandle far = env.timers.Schedule(env.clock.Now() + 30ms, &CountFired, &fired);
  AsyncTimerHandle mid = env.timers.Schedule(env.clock.Now() + 20ms, &CountFired, &fired);
  env.timers.Schedule(env.clock.Now() + 10ms, &CountFired, &fired);
  AsyncTimerHandle early = env.timers.Schedule(env.clock.Now() + 5ms, &CountFired, &fired);
  EXPECT_EQ(env.timers.arms(), 4u);
  EXPECT_TRUE(env.timers.Cancel(early));
  env.Advance(5ms);  // the aborted waits and an empty wake
  EXPECT_FALSE(env.io.stopped());
  env.Advance(5ms);
  EXPECT_EQ(fired, 1);
  EXPECT_FALSE(env.io.stopped());
  EXPECT_TRUE(env.timers.Cancel(mid));
  EXPECT_FALSE(env.io.stopped());
  EXPECT_TRUE(env.timers.Cancel(far));
  EXPECT_TRUE(env.io.stopped());
  // Waits scheduled once the context has stopped count again after a restart.
  env.io.restart();
  env.timers.Schedule(env.clock.Now() + 1ms, &CountFired, &fired);
  env.Advance(1ms);
  EXPECT_EQ(fired, 2);
  EXPECT_TRUE(env.io.stopped());
}

asio::awaitable<Result<int>> Ready(CallContext&) { co_return 7; }

// The user-facing case: run() until the calls are done. Each call's 1 h
// timeout leaves the context's one Asio timer armed for an hour; run()
// returns anyway, at once (RunBounded fails the test after 20 s).
TEST(AsioTimersWorkTest, RunReturnsWhenTheLastCallEndsWhileItsTimeoutIsStillArmed) {
  PipelineRef p = PipelineBuilder().AddTimeout(1h).Build().value();
  asio::io_context io;
  int answered = 0;
  http::testkit::RunBounded(io, [&]() -> asio::awaitable<void> {
    for (int i = 0; i < 3; ++i) {
      CallContext ctx;
      Result<int> r = co_await p.Execute(ctx, Ready);
      if (r.ok() && *r == 7) ++answered;
    }
  }());
  EXPECT_EQ(answered, 3);
}

}  // namespace
}  // namespace stormguard::testkit
