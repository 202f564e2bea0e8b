#include "stormguard/core/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <thread>
#include <vector>

namespace stormguard {
namespace {
using namespace std::chrono_literals;

const TimePoint kStart = TimePoint(1h);

// Real time is used only as a watchdog: a correct clock answers at once, a
// broken one fails the test instead of hanging it.
constexpr auto kWatchdog = 10s;

TEST(ManualClockTest, StartsWhereToldAndMovesOnlyOnAdvance) {
  ManualClock clock(kStart);
  EXPECT_EQ(clock.Now(), kStart);
  EXPECT_EQ(clock.Now(), kStart);
  clock.Advance(250ms);
  EXPECT_EQ(clock.Now(), kStart + 250ms);
  clock.SetNow(kStart + 1s);
  EXPECT_EQ(clock.Now(), kStart + 1s);
}

TEST(ManualClockTest, NeverMovesBackwards) {
  ManualClock clock(kStart);
  clock.SetNow(kStart + 5s);
  clock.SetNow(kStart + 1s);
  EXPECT_EQ(clock.Now(), kStart + 5s);
  clock.Advance(-3s);
  EXPECT_EQ(clock.Now(), kStart + 5s);
}

TEST(ManualClockTest, AdvanceSaturatesAtInfiniteFuture) {
  ManualClock clock(kStart);
  clock.Advance(Duration::max());
  EXPECT_EQ(clock.Now(), kInfiniteFuture);
  clock.Advance(1s);
  EXPECT_EQ(clock.Now(), kInfiniteFuture);
}

TEST(ManualClockTest, ConcurrentAdvancesAllCount) {
  ManualClock clock(kStart);
  constexpr int kPerThread = 20000;
  std::latch go(2);
  auto advance = [&] {
    go.arrive_and_wait();
    for (int i = 0; i < kPerThread; ++i) clock.Advance(1ns);
  };
  {
    std::jthread a(advance);
    std::jthread b(advance);
  }
  EXPECT_EQ(clock.Now(), kStart + Duration(2 * kPerThread));
}

TEST(ManualClockTest, AdvanceModeSleepJumpsAheadAndRecordsTheWait) {
  ManualClock clock(kStart);
  EXPECT_TRUE(clock.SleepUntil(kStart + 100ms, {}));
  EXPECT_TRUE(clock.SleepFor(200ms, {}));
  EXPECT_EQ(clock.Now(), kStart + 300ms);
  EXPECT_EQ(clock.total_slept(), 300ms);
  EXPECT_EQ(clock.sleep_count(), 2);
}

TEST(ManualClockTest, AdvanceModeSleepIntoThePastReturnsAtOnceWithoutMoving) {
  ManualClock clock(kStart);
  EXPECT_TRUE(clock.SleepUntil(kStart - 1s, {}));
  EXPECT_EQ(clock.Now(), kStart);
  EXPECT_EQ(clock.total_slept(), 0ns);
  EXPECT_EQ(clock.sleep_count(), 1);
}

TEST(ManualClockTest, AdvanceModeSleepWithStopRequestedReturnsFalseAndStays) {
  ManualClock clock(kStart);
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(clock.SleepUntil(kStart + 1s, stop.get_token()));
  EXPECT_EQ(clock.Now(), kStart);
  EXPECT_EQ(clock.total_slept(), 0ns);
  EXPECT_EQ(clock.sleep_count(), 0);
}

TEST(ManualClockTest, BlockModeWakesWhenAnotherThreadAdvancesPastTarget) {
  ManualClock clock(kStart, ManualClock::SleepMode::kBlockOnSleep);
  std::stop_source watchdog;
  std::latch sleeping(1);
  std::atomic<bool> returned{false};
  auto sleeper = std::async(std::launch::async, [&] {
    sleeping.count_down();
    const bool reached = clock.SleepUntil(kStart + 5s, watchdog.get_token());
    returned = true;
    return reached;
  });
  sleeping.wait();
  clock.Advance(4s);
  // Not there yet: a correct clock keeps sleeping (this can only pass early,
  // never fail spuriously).
  EXPECT_FALSE(returned.load());
  clock.Advance(1s);
  if (sleeper.wait_for(kWatchdog) != std::future_status::ready) {
    watchdog.request_stop();
    ADD_FAILURE() << "SleepUntil did not wake after Advance";
  }
  EXPECT_TRUE(sleeper.get());
  EXPECT_EQ(clock.Now(), kStart + 5s);
}

TEST(ManualClockTest, BlockModeWakesOnSetNow) {
  ManualClock clock(kStart, ManualClock::SleepMode::kBlockOnSleep);
  std::stop_source watchdog;
  auto sleeper = std::async(std::launch::async, [&] { return clock.SleepUntil(kStart + 1s, watchdog.get_token()); });
  clock.SetNow(kStart + 2s);
  if (sleeper.wait_for(kWatchdog) != std::future_status::ready) {
    watchdog.request_stop();
    ADD_FAILURE() << "SleepUntil did not wake after SetNow";
  }
  EXPECT_TRUE(sleeper.get());
}

TEST(ManualClockTest, BlockModeReturnsFalseWhenStopIsRequested) {
  ManualClock clock(kStart, ManualClock::SleepMode::kBlockOnSleep);
  std::stop_source stop;
  std::latch sleeping(1);
  auto sleeper = std::async(std::launch::async, [&] {
    sleeping.count_down();
    return clock.SleepUntil(kStart + 1h, stop.get_token());
  });
  sleeping.wait();
  stop.request_stop();
  if (sleeper.wait_for(kWatchdog) != std::future_status::ready) {
    clock.Advance(2h);  // unblock it so the test ends
    ADD_FAILURE() << "SleepUntil ignored the stop_token";
  }
  EXPECT_FALSE(sleeper.get());
  EXPECT_EQ(clock.Now(), kStart);
}

TEST(ManualClockTest, BlockModeWakesEverySleeperWhoseTimeHasCome) {
  ManualClock clock(kStart, ManualClock::SleepMode::kBlockOnSleep);
  std::stop_source watchdog;
  std::vector<std::future<bool>> sleepers;
  for (int i = 1; i <= 3; ++i) {
    sleepers.push_back(std::async(std::launch::async,
                                  [&, i] { return clock.SleepUntil(kStart + i * 1s, watchdog.get_token()); }));
  }
  clock.Advance(3s);
  for (auto& s : sleepers) {
    if (s.wait_for(kWatchdog) != std::future_status::ready) {
      watchdog.request_stop();
      ADD_FAILURE() << "a sleeper was not woken";
    }
    EXPECT_TRUE(s.get());
  }
}

TEST(RealClockTest, IsMonotonic) {
  Clock& clock = Clock::Real();
  const TimePoint a = clock.Now();
  const TimePoint b = clock.Now();
  EXPECT_LE(a, b);
}

TEST(RealClockTest, SleepUntilThePastReturnsTrueAtOnce) {
  Clock& clock = Clock::Real();
  EXPECT_TRUE(clock.SleepUntil(clock.Now() - 1s, {}));
}

TEST(RealClockTest, SleepWithStopRequestedReturnsFalseAtOnce) {
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(Clock::Real().SleepFor(1h, stop.get_token()));
}

}  // namespace
}  // namespace stormguard
