#include "stormguard/exec/timer_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "testkit/wait_until.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

std::shared_ptr<TimerService> Manual(ManualClock& clock) {
  auto s = TimerService::Create(clock, {.background_thread = false});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(s).value();
}

bool WaitForStop(std::stop_source& source) { return testkit::WaitForStop(source.get_token()); }

TEST(TimerServiceTest, FiresExactlyAtTheDeadlineAndStopsTheSource) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source stop;
  TimerHandle h = timers->Schedule(clock.Now() + 10ms, stop);
  clock.Advance(10ms - 1ns);
  EXPECT_EQ(timers->RunDue(), 0u);
  EXPECT_FALSE(stop.stop_requested());
  clock.Advance(1ns);
  EXPECT_EQ(timers->RunDue(), 1u);
  EXPECT_TRUE(stop.stop_requested());
  EXPECT_FALSE(TimerService::Cancel(h));  // it fired
  EXPECT_FALSE(h.armed());
}

TEST(TimerServiceTest, CancelBeforeExpiryNeverFires) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source stop;
  TimerHandle h = timers->Schedule(clock.Now() + 5ms, stop);
  EXPECT_EQ(timers->armed(), 1u);
  EXPECT_TRUE(TimerService::Cancel(h));
  EXPECT_EQ(timers->armed(), 0u);
  clock.Advance(1h);
  EXPECT_EQ(timers->RunDue(), 0u);
  EXPECT_FALSE(stop.stop_requested());
}

TEST(TimerServiceTest, DeadlineAlreadyPassedFiresOnTheNextRun) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source stop;
  TimerHandle h = timers->Schedule(clock.Now() - 1s, stop);
  EXPECT_EQ(timers->RunDue(), 1u);
  EXPECT_TRUE(stop.stop_requested());
  TimerService::Cancel(h);
}

TEST(TimerServiceTest, InfiniteDeadlineArmsNothing) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source stop;
  TimerHandle h = timers->Schedule(kInfiniteFuture, stop);
  EXPECT_FALSE(h.armed());
  EXPECT_EQ(timers->armed(), 0u);
  EXPECT_TRUE(TimerService::Cancel(h));
}

TEST(TimerServiceTest, DeadlineBeyondOneRevolutionFiresOnlyWhenReached) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source stop;
  const TimePoint deadline = clock.Now() + 10s;
  TimerHandle h = timers->Schedule(deadline, stop);
  while (clock.Now() + 100ms < deadline) {
    clock.Advance(100ms);
    ASSERT_EQ(timers->RunDue(), 0u) << ToMillis(deadline - clock.Now()) << "ms early";
  }
  clock.SetNow(deadline);
  EXPECT_EQ(timers->RunDue(), 1u);
  TimerService::Cancel(h);
}

TEST(TimerServiceTest, OneLargeJumpFiresEveryDueTimerAndNoOther) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::vector<std::stop_source> stops(300);  // more than one node block
  std::vector<TimerHandle> handles;
  for (std::size_t i = 0; i < stops.size(); ++i) {
    handles.push_back(timers->Schedule(clock.Now() + std::chrono::milliseconds(i * 7), stops[i]));
  }
  clock.Advance(1050ms);  // deadlines 0..1050ms are due: i <= 150
  EXPECT_EQ(timers->RunDue(), 151u);
  for (std::size_t i = 0; i < stops.size(); ++i) {
    EXPECT_EQ(stops[i].stop_requested(), i <= 150) << i;
    EXPECT_EQ(TimerService::Cancel(handles[i]), i > 150) << i;
  }
  EXPECT_EQ(timers->armed(), 0u);
}

TEST(TimerServiceTest, RejectsInvalidOptionsNamingTheField) {
  ManualClock clock;
  auto s = TimerService::Create(clock, {.tick = 0ns});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("tick: must be positive"));
  EXPECT_THAT(TimerService::Create(clock, {.tick = 2s}).status().message(), HasSubstr("tick: must be at most 1s"));
}

TEST(TimerServiceTest, ManyTimersOnOneThreadAndThreadsThatComeAndGo) {
  ManualClock clock;
  auto timers = Manual(clock);
  for (int round = 0; round < 3; ++round) {
    std::jthread([&] {  // each thread arms 40 at once: its block chains
      std::vector<std::stop_source> stops(40);
      std::vector<TimerHandle> handles;
      for (auto& s : stops) handles.push_back(timers->Schedule(clock.Now() + 1s, s));
      EXPECT_EQ(timers->armed(), 40u);
      for (auto& h : handles) EXPECT_TRUE(TimerService::Cancel(h));
    });
  }
  EXPECT_EQ(timers->armed(), 0u);
}

TEST(TimerServiceTest, BackgroundThreadWakesFromParkingAndFires) {
  // The thread sleeps on the manual clock, so only Advance lets it fire.
  ManualClock clock(TimePoint(1h), ManualClock::SleepMode::kBlockOnSleep);
  auto timers = TimerService::Create(clock).value();
  std::stop_source stop;
  TimerHandle h = timers->Schedule(clock.Now() + 5ms, stop);
  EXPECT_FALSE(stop.stop_requested());
  clock.Advance(5ms);
  ASSERT_TRUE(WaitForStop(stop));
  EXPECT_FALSE(TimerService::Cancel(h));
}

TEST(TimerServiceTest, DefaultServiceFiresOnTheRealClock) {
  TimerService& timers = TimerService::Default();
  std::stop_source stop;
  TimerHandle h = timers.Schedule(Clock::Real().Now() + 1ms, stop);
  ASSERT_TRUE(WaitForStop(stop));
  EXPECT_FALSE(TimerService::Cancel(h));
}

TEST(TimerServiceTest, CancelWaitsForARunningCallback) {
  ManualClock clock;
  auto timers = Manual(clock);
  struct Probe {
    std::atomic<bool> started{false}, release{false}, done{false};
  } probe;
  TimerHandle h = timers->Schedule(
      clock.Now(),
      [](void* p) noexcept {
        auto* q = static_cast<Probe*>(p);
        q->started = true;
        EXPECT_TRUE(testkit::WaitUntil([q] { return q->release.load(); }, "the callback's release"));
        q->done = true;
      },
      &probe);
  std::jthread firing([&] { timers->RunDue(); });
  ASSERT_TRUE(testkit::WaitUntil([&] { return probe.started.load(); }, "the callback's start"));
  std::atomic<bool> cancelling{false};
  bool fired = false, done_when_cancel_returned = false;
  std::jthread canceller([&] {
    cancelling = true;
    fired = !TimerService::Cancel(h);
    done_when_cancel_returned = probe.done;
  });
  EXPECT_TRUE(testkit::WaitUntil([&] { return cancelling.load(); }, "the cancel"));
  probe.release = true;
  canceller.join();
  EXPECT_TRUE(fired);
  EXPECT_TRUE(done_when_cancel_returned);
}

TEST(TimerServiceTest, CallbackTimerFiresWithItsArgumentExactlyAtTheDeadline) {
  ManualClock clock;
  auto timers = Manual(clock);
  struct Probe {
    ManualClock* clock;
    TimePoint fired_at{};
    int calls = 0;
  } probe{&clock};
  TimerHandle h = timers->Schedule(
      clock.Now() + 3ms,
      [](void* p) noexcept {
        auto* q = static_cast<Probe*>(p);
        q->fired_at = q->clock->Now();
        ++q->calls;
      },
      &probe);
  clock.Advance(3ms - 1ns);
  EXPECT_EQ(timers->RunDue(), 0u);
  clock.Advance(1ns);
  EXPECT_EQ(timers->RunDue(), 1u);
  EXPECT_EQ(timers->RunDue(), 0u);  // once only
  EXPECT_EQ(probe.calls, 1);
  EXPECT_EQ(probe.fired_at, clock.Now());
  EXPECT_FALSE(TimerService::Cancel(h));
}

// A fired timer frees its slot without Cancel; its stale handle, cancelled
// later, must not disarm the timer its thread armed in that slot since.
TEST(TimerServiceTest, AFiredTimersStaleHandleLeavesTheSlotsNextTimerAlone) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source first, second;
  TimerHandle stale = timers->Schedule(clock.Now(), first);
  EXPECT_EQ(timers->RunDue(), 1u);
  TimerHandle next = timers->Schedule(clock.Now() + 1ms, second);  // the same (freed) slot
  EXPECT_FALSE(TimerService::Cancel(stale));
  EXPECT_EQ(timers->armed(), 1u);
  clock.Advance(1ms);
  EXPECT_EQ(timers->RunDue(), 1u);
  EXPECT_TRUE(second.stop_requested());
  EXPECT_FALSE(TimerService::TryCancel(next));
}

TEST(TimerServiceTest, TryCancelDisarmsOrAnswersAtOnceWhileTheCallbackRuns) {
  ManualClock clock;
  auto timers = Manual(clock);
  std::stop_source stop;
  TimerHandle quiet = timers->Schedule(clock.Now() + 1s, stop);
  EXPECT_TRUE(TimerService::TryCancel(quiet));
  EXPECT_FALSE(quiet.armed());
  EXPECT_EQ(timers->armed(), 0u);

  struct Probe {
    std::atomic<bool> started{false}, release{false};
  } probe;
  TimerHandle h = timers->Schedule(
      clock.Now(),
      [](void* p) noexcept {
        auto* q = static_cast<Probe*>(p);
        q->started = true;
        EXPECT_TRUE(testkit::WaitUntil([q] { return q->release.load(); }, "the callback's release"));
      },
      &probe);
  std::jthread firing([&] { timers->RunDue(); });
  ASSERT_TRUE(testkit::WaitUntil([&] { return probe.started.load(); }, "the callback's start"));
  // Releases the callback if TryCancel wrongly waits for it, so the test fails instead of hanging.
  std::jthread watchdog([&probe](std::stop_token quit) {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait_for(lock, quit, 2s, [] { return false; });
    probe.release = true;
  });
  EXPECT_FALSE(TimerService::TryCancel(h));
  EXPECT_FALSE(probe.release) << "TryCancel waited for the running callback";
  EXPECT_TRUE(h.armed());  // kept: asking again gives the same answer
  EXPECT_FALSE(TimerService::TryCancel(h));
  probe.release = true;
  firing.join();
  EXPECT_FALSE(TimerService::TryCancel(h));
  EXPECT_FALSE(stop.stop_requested());
}

// Threads arm and disarm timers that are due at once while another thread
// fires them: each Cancel must agree with whether its source was stopped,
// and no node may be freed while its callback runs (ASan/TSan builds).
TEST(TimerServiceTest, ConcurrentScheduleAndCancelAgreeWithFiring) {
  ManualClock clock;
  auto timers = Manual(clock);
  constexpr int kThreads = 3, kIterations = 5000;
  std::atomic<int> done{0}, fired{0}, disagreements{0};
  std::vector<std::jthread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        std::stop_source stop;
        TimerHandle h = timers->Schedule(clock.Now() + std::chrono::nanoseconds((i + t) % 3), stop);
        if (i % 2 == 0) std::this_thread::yield();
        const bool cancelled = TimerService::Cancel(h);
        if (cancelled == stop.stop_requested()) ++disagreements;
        if (!cancelled) ++fired;
      }
      ++done;
    });
  }
  while (done < kThreads) {
    clock.Advance(1ns);
    timers->RunDue();
  }
  workers.clear();
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(timers->armed(), 0u);
  RecordProperty("fired", fired.load());
}

}  // namespace
}  // namespace stormguard
