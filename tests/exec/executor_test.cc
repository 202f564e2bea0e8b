#include "stormguard/exec/executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "hedge/hedge_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::Checkpoint;
using hedge_testing::Gate;
using ::testing::ElementsAre;

std::unique_ptr<Executor> Make(ExecutorOptions o, Clock& clock) {
  auto ex = Executor::Create(o, clock);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  return std::move(ex).value();
}

// Records the order in which timer tasks ran (they run on one thread).
struct Order {
  std::mutex mu;
  std::vector<int> ran;
  Checkpoint done;
  void Add(int id) {
    {
      std::lock_guard lock(mu);
      ran.push_back(id);
    }
    done.Arrive();
  }
};

TEST(ExecutorTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((ExecutorOptions{.threads = 0, .queue_capacity = 0, .timer_capacity = 0}.Validate()),
              ElementsAre("threads: must be between 1 and 64", "queue_capacity: must be at least 1",
                          "timer_capacity: must be at least 1"));
}

TEST(ExecutorTest, RunsEverySubmittedTaskOnAWorker) {
  ManualClock clock;
  Checkpoint done;
  auto ex = Make({.threads = 3}, clock);
  for (int i = 0; i < 50; ++i) {
    while (!ex->TrySubmit([&done] { done.Arrive(); })) {
    }
  }
  done.WaitFor(50);
  EXPECT_EQ(ex->submitted(), 50u);
}

TEST(ExecutorTest, RefusesWorkWhenTheQueueIsFull) {
  ManualClock clock;
  Gate gate;
  Checkpoint started;
  auto ex = Make({.threads = 1, .queue_capacity = 1}, clock);
  ASSERT_TRUE(ex->TrySubmit([&] {
    started.Arrive();
    gate.Wait({});
  }));
  started.WaitFor(1);  // the worker is busy, the queue empty
  EXPECT_TRUE(ex->TrySubmit([] {}));
  EXPECT_FALSE(ex->TrySubmit([] {}));
  gate.Open();
}

TEST(ExecutorTest, TimerFiresWhenTheClockReachesItsTime) {
  ManualClock clock(TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep);
  std::atomic<std::int64_t> fired_at{0};
  Checkpoint fired;
  const TimePoint due = clock.Now() + 10ms;
  auto ex = Make({}, clock);
  ASSERT_NE(ex->ScheduleAt(due, [&] {
    fired_at = clock.Now().time_since_epoch().count();
    fired.Arrive();
  }), kNoTimer);
  clock.Advance(9ms);
  EXPECT_EQ(fired.count(), 0);
  clock.Advance(1ms);
  fired.WaitFor(1);
  EXPECT_EQ(fired_at.load(), due.time_since_epoch().count());
}

TEST(ExecutorTest, TimersRunInTimeOrderAndAnEarlierOneInterruptsTheWait) {
  ManualClock clock(TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep);
  Order order;
  const TimePoint t0 = clock.Now();
  auto ex = Make({}, clock);
  ex->ScheduleAt(t0 + 100ms, [&order] { order.Add(100); });
  ex->ScheduleAt(t0 + 10ms, [&order] { order.Add(10); });  // the timer thread waits for 100 ms already
  ex->ScheduleAt(t0 + 50ms, [&order] { order.Add(50); });
  clock.Advance(10ms);
  order.done.WaitFor(1);
  clock.Advance(90ms);
  order.done.WaitFor(3);
  EXPECT_THAT(order.ran, ElementsAre(10, 50, 100));
}

TEST(ExecutorTest, ACancelledTimerNeverRuns) {
  ManualClock clock(TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep);
  Order order;
  const TimePoint t0 = clock.Now();
  auto ex = Make({}, clock);
  const TimerId cancelled = ex->ScheduleAt(t0 + 10ms, [&order] { order.Add(1); });
  ex->ScheduleAt(t0 + 20ms, [&order] { order.Add(2); });  // runs after the cancelled one would have
  EXPECT_TRUE(ex->Cancel(cancelled));
  EXPECT_FALSE(ex->Cancel(cancelled));  // its id is spent
  clock.Advance(20ms);
  order.done.WaitFor(1);
  EXPECT_THAT(order.ran, ElementsAre(2));
  EXPECT_FALSE(ex->Cancel(kNoTimer));
}

TEST(ExecutorTest, CancelAfterTheTimerRanReturnsFalse) {
  ManualClock clock(TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep);
  Checkpoint fired;
  auto ex = Make({}, clock);
  const TimerId id = ex->ScheduleAt(clock.Now(), [&fired] { fired.Arrive(); });
  fired.WaitFor(1);
  EXPECT_FALSE(ex->Cancel(id));
}

TEST(ExecutorTest, TimerTableRefusesWhenFull) {
  ManualClock clock(TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep);
  auto ex = Make({.timer_capacity = 2}, clock);
  EXPECT_NE(ex->ScheduleAt(clock.Now() + 1h, [] {}), kNoTimer);
  const TimerId second = ex->ScheduleAt(clock.Now() + 1h, [] {});
  EXPECT_EQ(ex->ScheduleAt(clock.Now() + 1h, [] {}), kNoTimer);
  EXPECT_TRUE(ex->Cancel(second));
  EXPECT_NE(ex->ScheduleAt(clock.Now() + 1h, [] {}), kNoTimer);  // the slot is free again
}

TEST(ExecutorTest, ShutdownFiresPendingTimersRunsQueuedTasksThenRefuses) {
  ManualClock clock(TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep);
  std::atomic<int> timers{0};
  std::atomic<int> tasks{0};
  Gate gate;
  auto ex = Make({.threads = 1, .queue_capacity = 8}, clock);
  ex->ScheduleAt(clock.Now() + 1h, [&timers] { ++timers; });
  ASSERT_TRUE(ex->TrySubmit([&gate] { gate.Wait({}); }));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(ex->TrySubmit([&tasks] { ++tasks; }));
  gate.Open();
  ex->Shutdown();
  EXPECT_EQ(timers, 1);
  EXPECT_EQ(tasks, 5);
  EXPECT_FALSE(ex->TrySubmit([] {}));
  EXPECT_EQ(ex->ScheduleAt(clock.Now(), [] {}), kNoTimer);
}

}  // namespace
}  // namespace stormguard
