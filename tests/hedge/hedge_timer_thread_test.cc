// The timer thread never waits for user code: a listener that blocks in the
// hedge's launch event must not delay the other timers of the TimerService
// whose timer launched the hedge (testkit/timer_thread_probe.h).
#include <gtest/gtest.h>

#include "hedge/hedge_test_util.h"
#include "stormguard/exec/executor.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/hedge/hedge_driver.h"
#include "testkit/timer_thread_probe.h"
#include "testkit/wait_until.h"

namespace stormguard::hedge_timer_thread_test {
namespace {
using namespace std::chrono_literals;

TEST(HedgeTimerThreadTest, ASlowListenerDoesNotDelayOtherTimers) {
  Clock& clock = Clock::Real();
  testkit::StallingListener listener(EventKind::kHedgeLaunched);
  const HedgePolicy policy = hedge_testing::Make(hedge_testing::Idempotent(10ms, 1, &listener));
  hedge_testing::Gate never;
  std::shared_ptr<TimerService> timers = TimerService::Create(clock).value();
  std::shared_ptr<Executor> ex = Executor::Create({.threads = 2, .timers = timers.get()}).value();
  const TimePoint start = clock.Now();
  // Due after the hedge's timer fired and its listener began to stall.
  testkit::TimerProbe probe{.clock = clock, .due = start + 30ms};
  TimerHandle h = timers->Schedule(probe.due, &testkit::TimerProbe::Fire, &probe);
  CallContext ctx{.deadline = Deadline::After(start, 5s)};
  const Result<int> r = ExecuteHedged(
      policy, ctx,
      [&](CallContext& a) -> Result<int> {
        if (a.attempt == 2) return 7;  // the hedge answers at once
        never.Wait(a.stop);
        return Status::Cancelled("lost");
      },
      *ex);
  ASSERT_TRUE(testkit::WaitUntil([&] { return probe.fired(); }, "the probe timer"));
  EXPECT_FALSE(TimerService::Cancel(h));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  EXPECT_EQ(listener.stalled.load(), 1);
  EXPECT_LT(probe.Lateness(), testkit::kAllowedTimerLateness) << "late by " << probe.LatenessMs() << " ms";
}

}  // namespace
}  // namespace stormguard::hedge_timer_thread_test
