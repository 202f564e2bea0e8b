#include "stormguard/exec/executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "hedge/hedge_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using hedge_testing::Checkpoint;
using hedge_testing::Gate;
using ::testing::ElementsAre;

std::shared_ptr<Executor> Make(ExecutorOptions o) {
  auto ex = Executor::Create(o);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  return std::move(ex).value();
}

TEST(ExecutorTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((ExecutorOptions{.threads = 0, .queue_capacity = 0}.Validate()),
              ElementsAre("threads: must be between 1 and 64", "queue_capacity: must be at least 1"));
  EXPECT_EQ(Executor::Create({.threads = 65}).status().code(), StatusCode::kInvalidArgument);
}

// Its timers, and the clock they follow, are the injected service's; the
// real clock's shared service by default.
TEST(ExecutorTest, TimersComeFromTheInjectedTimerService) {
  ManualClock clock;
  auto timers = TimerService::Create(clock, {.background_thread = false}).value();
  auto ex = Make({.threads = 1, .timers = timers.get()});
  EXPECT_EQ(&ex->timers(), timers.get());
  EXPECT_EQ(&ex->clock(), &clock);
  auto by_default = Make({.threads = 1});
  EXPECT_EQ(&by_default->timers(), &TimerService::Default());
  EXPECT_EQ(&by_default->clock(), &Clock::Real());
}

TEST(ExecutorTest, RunsEverySubmittedTaskOnAWorker) {
  Checkpoint done;
  auto ex = Make({.threads = 3});
  for (int i = 0; i < 50; ++i) {
    while (!ex->TrySubmit([&done] { done.Arrive(); })) {
    }
  }
  done.WaitFor(50);
  EXPECT_EQ(ex->submitted(), 50u);
}

TEST(ExecutorTest, RefusesWorkWhenTheQueueIsFull) {
  Gate gate;
  Checkpoint started;
  auto ex = Make({.threads = 1, .queue_capacity = 1});
  ASSERT_TRUE(ex->TrySubmit([&] {
    started.Arrive();
    gate.Wait({});
  }));
  started.WaitFor(1);  // the worker is busy, the queue empty
  EXPECT_TRUE(ex->TrySubmit([] {}));
  EXPECT_FALSE(ex->TrySubmit([] {}));
  gate.Open();
}

TEST(ExecutorTest, ShutdownRunsQueuedTasksThenRefuses) {
  std::atomic<int> tasks{0};
  Gate gate;
  auto ex = Make({.threads = 1, .queue_capacity = 8});
  ASSERT_TRUE(ex->TrySubmit([&gate] { gate.Wait({}); }));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(ex->TrySubmit([&tasks] { ++tasks; }));
  gate.Open();
  ex->Shutdown();
  EXPECT_EQ(tasks, 5);
  EXPECT_FALSE(ex->TrySubmit([] {}));
}

// A task that finishes a call may let its caller destroy the pool at once:
// the thread that submitted it must not touch the pool after the task can
// run. (A hedge's timer hands its decision to the call's pool, and the last
// pipeline may go with the call; TSan and ASan see a late touch here.)
TEST(ExecutorTest, ThePoolMayGoAsSoonAsASubmittedTaskHasRun) {
  for (int i = 0; i < 300; ++i) {
    auto ex = Make({.threads = 1, .queue_capacity = 4});
    std::atomic<bool> ran{false};
    const auto run = [&ran] {
      ran.store(true, std::memory_order_release);
      ran.notify_one();
    };
    std::thread submitter([pool = ex.get(), run] {
      if (!pool->TrySubmit(run)) {
        ADD_FAILURE() << "refused";
        run();
      }
    });
    ran.wait(false, std::memory_order_acquire);
    ex.reset();  // joins the worker; the submitter may still be in TrySubmit
    submitter.join();
  }
}

}  // namespace
}  // namespace stormguard
