// The AsyncTimers contract on Asio waitable timers, on virtual time.
#include "stormguard/asio/asio_timers.h"

#include <gtest/gtest.h>

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <thread>

#include "virtual_time.h"

namespace stormguard::testing {
namespace {
using namespace std::chrono_literals;

struct Env {
  ManualClock clock;
  UseVirtualClock use{clock};
  asio::io_context io;
  VirtualTimers timers{io.get_executor(), clock};

  void Advance(Duration d) {
    clock.Advance(d);
    io.restart();
    io.poll();
  }
};

void Count(void* arg) noexcept { ++*static_cast<int*>(arg); }

TEST(AsioTimersTest, ACallbackRunsOnceItsTimeHasPassed) {
  Env env;
  int fired = 0;
  AsyncTimerHandle h = env.timers.Schedule(env.clock.Now() + 10ms, &Count, &fired);
  env.Advance(9ms);
  EXPECT_EQ(fired, 0);
  env.Advance(1ms);
  EXPECT_EQ(fired, 1);
  env.Advance(1s);
  EXPECT_EQ(fired, 1);
  EXPECT_FALSE(env.timers.Cancel(h));  // it ran
  EXPECT_FALSE(h.armed);
}

TEST(AsioTimersTest, ACancelledCallbackNeverRuns) {
  Env env;
  int fired = 0;
  AsyncTimerHandle h = env.timers.Schedule(env.clock.Now() + 10ms, &Count, &fired);
  env.Advance(5ms);
  EXPECT_TRUE(env.timers.Cancel(h));
  EXPECT_TRUE(env.timers.Cancel(h));  // an unarmed handle cancels trivially
  env.Advance(1s);
  EXPECT_EQ(fired, 0);
}

TEST(AsioTimersTest, ATimeAlreadyPassedFiresAtTheNextPoll) {
  Env env;
  int fired = 0;
  env.timers.Schedule(env.clock.Now() - 1s, &Count, &fired);
  env.Advance(0ms);
  EXPECT_EQ(fired, 1);
}

TEST(AsioTimersTest, NodesAreReusedSoSteadyStateSchedulesMakeNone) {
  Env env;
  int fired = 0;
  for (int i = 0; i < 100; ++i) {
    env.timers.Schedule(env.clock.Now() + 1ms, &Count, &fired);
    env.Advance(1ms);
    AsyncTimerHandle h = env.timers.Schedule(env.clock.Now() + 1s, &Count, &fired);
    EXPECT_TRUE(env.timers.Cancel(h));
    env.Advance(0ms);  // the aborted wait hands its node back
  }
  EXPECT_EQ(fired, 100);
  EXPECT_EQ(env.timers.nodes(), 1u);
}

// A callback may schedule the next wait (a retry's backoff after an attempt).
TEST(AsioTimersTest, ACallbackMayScheduleAgain) {
  struct Chain {
    VirtualTimers* timers;
    Clock* clock;
    int left = 3;
    static void Next(void* arg) noexcept {
      auto* c = static_cast<Chain*>(arg);
      if (--c->left > 0) c->timers->Schedule(c->clock->Now() + 1ms, &Next, c);
    }
  };
  Env env;
  Chain chain{&env.timers, &env.clock};
  env.timers.Schedule(env.clock.Now() + 1ms, &Chain::Next, &chain);
  for (int i = 0; i < 3; ++i) env.Advance(1ms);
  EXPECT_EQ(chain.left, 0);
}

// Cancel from another thread while the callback runs: false, and only once
// the callback has returned.
TEST(AsioTimersTest, ACancelWaitsOutARunningCallback) {
  struct Probe {
    std::atomic<bool> entered{false};
    std::atomic<bool> cancelling{false};
    std::atomic<bool> returned{false};
    static void Run(void* arg) noexcept {
      auto* p = static_cast<Probe*>(arg);
      p->entered = true;
      while (!p->cancelling) std::this_thread::yield();
      p->returned = true;
    }
  };
  Env env;
  Probe probe;
  AsyncTimerHandle h = env.timers.Schedule(env.clock.Now(), &Probe::Run, &probe);
  bool cancelled = true;
  bool returned_before = false;
  std::thread other([&] {
    while (!probe.entered) std::this_thread::yield();
    probe.cancelling = true;
    cancelled = env.timers.Cancel(h);
    returned_before = probe.returned;
  });
  env.Advance(0ms);
  other.join();
  EXPECT_FALSE(cancelled);
  EXPECT_TRUE(returned_before);
}

}  // namespace
}  // namespace stormguard::testing
