// A callback that holds up the timer thread is counted and named: the
// callbacks here "take" time by moving the ManualClock, so the measure is
// exact and nothing sleeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "stormguard/exec/timer_service.h"

namespace stormguard::timer_slow_callback_test {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

struct Work {
  ManualClock& clock;
  Duration takes;
};

void Slow(void* arg) noexcept {
  auto* w = static_cast<Work*>(arg);
  w->clock.Advance(w->takes);
}
void Slower(void* arg) noexcept { Slow(arg); }

TEST(TimerServiceSlowCallbackTest, CallbacksLongerThanTheBoundAreCountedAndTheSlowestNamed) {
  ManualClock clock;
  auto timers = TimerService::Create(clock, {.background_thread = false, .slow_callback = 10ms}).value();
  Work quick{clock, 10ms};  // at the bound: not slow
  Work slow{clock, 20ms};
  Work slower{clock, 50ms};
  const TimePoint due = clock.Now() + 1ms;
  TimerHandle a = timers->Schedule(due, &Slow, &quick);
  TimerHandle b = timers->Schedule(due, &Slower, &slower);
  TimerHandle c = timers->Schedule(due, &Slow, &slow);
  clock.Advance(1ms);
  EXPECT_EQ(timers->RunDue(), 3u);
  const TimerService::SlowCallbacks seen = timers->slow_callbacks();
  EXPECT_EQ(seen.count, 2u);
  EXPECT_EQ(seen.longest, 50ms);
  EXPECT_EQ(seen.longest_callback, &Slower);
  EXPECT_FALSE(TimerService::Cancel(a));
  EXPECT_FALSE(TimerService::Cancel(b));
  EXPECT_FALSE(TimerService::Cancel(c));
}

TEST(TimerServiceSlowCallbackTest, TheBoundMustBePositive) {
  ManualClock clock;
  EXPECT_THAT(TimerService::Create(clock, {.slow_callback = 0ns}).status().message(),
              HasSubstr("slow_callback: must be positive"));
}

}  // namespace
}  // namespace stormguard::timer_slow_callback_test
