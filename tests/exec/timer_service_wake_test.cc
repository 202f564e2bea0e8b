// How the TimerService's background thread sleeps: until the earliest armed
// deadline, woken by Schedule only for a timer due more than a tick earlier.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/exec/timer_service.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

// A ManualClock that blocks sleepers and records when each sleep began and
// until when, so a test can wait for the timer thread to be asleep.
class SleepLog final : public Clock {
 public:
  TimePoint Now() const noexcept override { return clock_.Now(); }
  bool SleepUntil(TimePoint t, std::stop_token stop) override {
    {
      std::lock_guard lock(mu_);
      targets_.push_back(t);
    }
    began_.notify_all();
    return clock_.SleepUntil(t, std::move(stop));
  }
  void Advance(Duration d) { clock_.Advance(d); }

  // The target of the n-th sleep (from 1), once it has begun; bounded wait.
  TimePoint WaitForSleep(std::size_t n) {
    std::unique_lock lock(mu_);
    const bool began = began_.wait_for(lock, 60s, [&] { return targets_.size() >= n; });
    return began ? targets_[n - 1] : kInfiniteFuture;
  }
  std::size_t sleeps() {
    std::lock_guard lock(mu_);
    return targets_.size();
  }

 private:
  ManualClock clock_{TimePoint(1h), ManualClock::SleepMode::kBlockOnSleep};
  std::mutex mu_;
  std::condition_variable began_;
  std::vector<TimePoint> targets_;
};

TEST(TimerServiceWakeTest, SleepsUntilTheEarliestDeadlineAndLaterTimersWakeNothing) {
  SleepLog clock;
  auto timers = TimerService::Create(clock, {.tick = 1ms}).value();
  const TimePoint start = clock.Now();
  std::stop_source first;
  TimerHandle h = timers->Schedule(start + 1s, first);
  ASSERT_EQ(clock.WaitForSleep(1), start + 1s);  // not a tick

  // Later timers, and one less than a tick earlier, armed and cancelled: no wake-up.
  for (int i = 0; i < 1000; ++i) {
    std::stop_source later;
    TimerHandle l = timers->Schedule(start + 2s + std::chrono::milliseconds(i), later);
    EXPECT_TRUE(TimerService::Cancel(l));
  }
  std::stop_source within_tick;
  TimerHandle w = timers->Schedule(start + 1s - 500us, within_tick);
  EXPECT_TRUE(TimerService::Cancel(w));

  // An earlier one wakes it: had anything above woken it, this sleep would be until 1s again.
  std::stop_source early;
  TimerHandle e = timers->Schedule(start + 10ms, early);
  ASSERT_EQ(clock.WaitForSleep(2), start + 10ms);
  clock.Advance(10ms);
  ASSERT_TRUE(testkit::WaitForStop(early.get_token()));
  EXPECT_FALSE(TimerService::Cancel(e));
  EXPECT_EQ(clock.WaitForSleep(3), start + 1s);  // back to the first timer
  EXPECT_EQ(clock.sleeps(), 3u);
  EXPECT_TRUE(TimerService::Cancel(h));
  EXPECT_FALSE(first.stop_requested());
}

TEST(TimerServiceWakeTest, ACancelledEarliestTimerCostsOneWakeAtItsDeadlineAndFiresNothing) {
  SleepLog clock;
  auto timers = TimerService::Create(clock, {.tick = 1ms}).value();
  const TimePoint start = clock.Now();
  std::stop_source first, second;
  TimerHandle h1 = timers->Schedule(start + 5ms, first);
  TimerHandle h2 = timers->Schedule(start + 50ms, second);
  ASSERT_EQ(clock.WaitForSleep(1), start + 5ms);
  EXPECT_TRUE(TimerService::Cancel(h1));
  clock.Advance(5ms);
  EXPECT_EQ(clock.WaitForSleep(2), start + 50ms);
  clock.Advance(45ms);
  ASSERT_TRUE(testkit::WaitForStop(second.get_token()));
  EXPECT_FALSE(first.stop_requested());
  EXPECT_FALSE(TimerService::Cancel(h2));
}

// Many timers due within one tick of each other: one wake-up fires the
// first, and the next sleep lasts at least a tick.
TEST(TimerServiceWakeTest, WakesAtMostOnceATick) {
  SleepLog clock;
  auto timers = TimerService::Create(clock, {.tick = 1ms}).value();
  const TimePoint start = clock.Now();
  std::vector<std::stop_source> stops(10);
  std::vector<TimerHandle> handles;
  for (std::size_t i = 0; i < stops.size(); ++i) {
    handles.push_back(timers->Schedule(start + 1ms + std::chrono::microseconds(100 * i), stops[i]));
  }
  ASSERT_EQ(clock.WaitForSleep(1), start + 1ms);
  clock.Advance(1ms);
  ASSERT_TRUE(testkit::WaitForStop(stops[0].get_token()));
  EXPECT_EQ(clock.WaitForSleep(2), start + 2ms);  // not 1.1 ms
  clock.Advance(1ms);
  for (std::stop_source& s : stops) ASSERT_TRUE(testkit::WaitForStop(s.get_token()));
  for (TimerHandle& h : handles) EXPECT_FALSE(TimerService::Cancel(h));
}

}  // namespace
}  // namespace stormguard
