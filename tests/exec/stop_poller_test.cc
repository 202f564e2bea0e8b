#include "stormguard/exec/stop_poller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "testkit/wait_until.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

std::shared_ptr<TimerService> ManualTimers(ManualClock& clock) {
  return TimerService::Create(clock, {.background_thread = false}).value();
}

TEST(StopPollerTest, AsksEveryIntervalAndStopsTheFirstTimeTheConditionHolds) {
  ManualClock clock;
  auto timers = ManualTimers(clock);
  std::stop_source stop;
  int asked = 0;
  bool cancelled = false;
  StopPoller poller(
      *timers, 5ms,
      [&] {
        ++asked;
        return cancelled;
      },
      stop);
  clock.Advance(5ms - 1ns);
  timers->RunDue();
  EXPECT_EQ(asked, 0);
  for (int i = 1; i <= 3; ++i) {
    clock.Advance(5ms);
    timers->RunDue();
    EXPECT_EQ(asked, i);
  }
  EXPECT_FALSE(stop.stop_requested());
  cancelled = true;
  clock.Advance(5ms);
  timers->RunDue();
  EXPECT_TRUE(stop.stop_requested());
  clock.Advance(50ms);
  timers->RunDue();
  EXPECT_EQ(asked, 4);  // asks no more once it fired
  EXPECT_EQ(timers->armed(), 0u);
  EXPECT_TRUE(poller.Stop());
}

TEST(StopPollerTest, StopEndsTheAskingWithoutFiring) {
  ManualClock clock;
  auto timers = ManualTimers(clock);
  std::stop_source stop;
  int asked = 0;
  StopPoller poller(
      *timers, 5ms,
      [&] {
        ++asked;
        return true;
      },
      stop);
  EXPECT_FALSE(poller.Stop());
  EXPECT_FALSE(poller.Stop());  // idempotent
  EXPECT_EQ(timers->armed(), 0u);
  clock.Advance(1s);
  timers->RunDue();
  EXPECT_EQ(asked, 0);
  EXPECT_FALSE(stop.stop_requested());
}

// On the real timer thread: destruction racing with firings and re-arming
// (TSan checks the hand-over). Bounded: 200 pollers of at most ~2 ms each.
TEST(StopPollerTest, DestructionRacesFiringsSafely) {
  auto timers = TimerService::Create(Clock::Real(), {.tick = 100us}).value();
  int fired = 0;
  for (int i = 0; i < 200; ++i) {
    std::stop_source stop;
    std::atomic<int> asked{0};
    {
      StopPoller poller(
          *timers, 100us, [&] { return ++asked >= 3; }, stop);
      if (i % 2 == 0) {  // every other one: wait for it to fire
        EXPECT_TRUE(testkit::WaitUntil([&] { return stop.stop_requested() || asked.load() >= 3; },
                                       "the poller's third poll"));
      }
      if (poller.Stop()) ++fired;
    }
    EXPECT_EQ(stop.stop_requested(), asked.load() >= 3);
  }
  EXPECT_GE(fired, 100);
  EXPECT_EQ(timers->armed(), 0u);
}

}  // namespace
}  // namespace stormguard
