// The AsyncTimers contract on Asio waitable timers, on virtual time.
#include "stormguard/asio/asio_timers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "testkit/wait_until.h"
#include "virtual_time.h"

namespace stormguard::testkit {
namespace {
using namespace std::chrono_literals;

struct Env {
  ManualClock clock;
  UseVirtualClock use{clock};
  asio::io_context io;
  VirtualTimers timers{io.get_executor(), clock};

  // Returns how many handlers ran (wakes, aborted waits).
  std::size_t Advance(Duration d) {
    clock.Advance(d);
    io.restart();
    return io.poll();
  }
};

void Count(void* arg) noexcept { ++*static_cast<int*>(arg); }

// Appends its id to a shared log when it runs.
struct Logged {
  std::vector<int>* log;
  int id;
  static void Run(void* arg) noexcept {
    auto* l = static_cast<Logged*>(arg);
    l->log->push_back(l->id);
  }
};

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
    env.Advance(0ms);
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
      EXPECT_TRUE(WaitUntil([p] { return p->cancelling.load(); }, "the cancel"));
      p->returned = true;
    }
  };
  Env env;
  Probe probe;
  AsyncTimerHandle h = env.timers.Schedule(env.clock.Now(), &Probe::Run, &probe);
  bool cancelled = true;
  bool returned_before = false;
  std::thread other([&] {
    EXPECT_TRUE(WaitUntil([&] { return probe.entered.load(); }, "the callback's start"));
    probe.cancelling = true;
    cancelled = env.timers.Cancel(h);
    returned_before = probe.returned;
  });
  env.Advance(0ms);
  other.join();
  EXPECT_FALSE(cancelled);
  EXPECT_TRUE(returned_before);
}

// The timeout of a call that succeeds: scheduled, then cancelled at once.
// Once a deadline no later than the new ones is armed, neither Schedule nor
// Cancel touches the Asio timer, and nothing reaches the executor.
TEST(AsioTimersTest, ScheduleCancelPairsAtLaterOrEqualDeadlinesArmTheAsioTimerOnce) {
  Env env;
  int fired = 0;
  std::size_t handlers = 0;
  for (int i = 0; i < 1000; ++i) {
    AsyncTimerHandle h = env.timers.Schedule(env.clock.Now() + 1s, &Count, &fired);
    EXPECT_TRUE(env.timers.Cancel(h));
    AsyncTimerHandle same = env.timers.Schedule(env.clock.Now() + 1s, &Count, &fired);
    EXPECT_TRUE(env.timers.Cancel(same));
    handlers += env.Advance(100us);
  }
  EXPECT_EQ(env.timers.arms(), 1u);
  EXPECT_EQ(handlers, 0u);
  EXPECT_EQ(env.Advance(1s), 0u);  // the idle wait is no work: the context has none left
  EXPECT_TRUE(env.io.stopped());
  EXPECT_EQ(env.timers.arms(), 1u);
  EXPECT_EQ(fired, 0);
  EXPECT_EQ(env.timers.nodes(), 1u);
}

TEST(AsioTimersTest, AnEarlierDeadlineReArms) {
  Env env;
  std::vector<int> log;
  Logged a{&log, 10}, b{&log, 5}, c{&log, 7};
  env.timers.Schedule(env.clock.Now() + 10ms, &Logged::Run, &a);
  EXPECT_EQ(env.timers.arms(), 1u);
  env.timers.Schedule(env.clock.Now() + 5ms, &Logged::Run, &b);
  EXPECT_EQ(env.timers.arms(), 2u);
  env.timers.Schedule(env.clock.Now() + 7ms, &Logged::Run, &c);
  EXPECT_EQ(env.timers.arms(), 2u);
  // The replaced wait's aborted completion runs nothing and arms nothing
  // (bounded: were it taken for a wake, each re-arm would abort the next).
  env.io.restart();
  std::size_t handlers = 0;
  while (handlers < 10 && env.io.poll_one() > 0) ++handlers;
  ASSERT_EQ(handlers, 1u);  // else polling on would never end
  EXPECT_EQ(env.timers.arms(), 2u);
  EXPECT_TRUE(log.empty());
  env.Advance(5ms);
  EXPECT_EQ(log, std::vector<int>({5}));
  EXPECT_EQ(env.timers.arms(), 3u);  // for the 7 ms node
  env.Advance(2ms);
  EXPECT_EQ(log, std::vector<int>({5, 7}));
  env.Advance(3ms);
  EXPECT_EQ(log, std::vector<int>({5, 7, 10}));
  EXPECT_EQ(env.timers.arms(), 4u);
}

TEST(AsioTimersTest, CallbacksRunInDeadlineOrderEachOnceTiesInScheduleOrder) {
  Env env;
  std::mt19937 random(11);
  std::uniform_int_distribution<int> ms(0, 49);  // 500 nodes on 50 deadlines: many ties
  std::vector<int> log;
  std::vector<Logged> nodes;
  std::vector<std::pair<int, int>> expected;  // (deadline, id), stably sorted below
  nodes.reserve(500);
  for (int id = 0; id < 500; ++id) {
    const int at = ms(random);
    nodes.push_back({&log, id});
    env.timers.Schedule(env.clock.Now() + std::chrono::milliseconds(at), &Logged::Run, &nodes.back());
    expected.emplace_back(at, id);
  }
  std::stable_sort(expected.begin(), expected.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (int i = 0; i < 25; ++i) env.Advance(1ms);  // half of them one tick at a time ...
  env.Advance(1s);                                // ... the rest in one wake
  std::vector<int> ids;
  for (const auto& [at, id] : expected) ids.push_back(id);
  EXPECT_EQ(log, ids);
}

TEST(AsioTimersTest, CancellingTheEarliestThenWakingAtItsTimeRunsNothingAndReArmsForTheNext) {
  Env env;
  int first = 0;
  int second = 0;
  AsyncTimerHandle h = env.timers.Schedule(env.clock.Now() + 5ms, &Count, &first);
  env.timers.Schedule(env.clock.Now() + 10ms, &Count, &second);
  EXPECT_TRUE(env.timers.Cancel(h));
  EXPECT_EQ(env.timers.arms(), 1u);  // the cancel left the 5 ms wait armed
  EXPECT_EQ(env.Advance(5ms), 1u);   // its wake ...
  EXPECT_EQ(first + second, 0);      // ... runs nothing ...
  EXPECT_EQ(env.timers.arms(), 2u);  // ... and re-arms for 10 ms
  env.Advance(4ms);
  EXPECT_EQ(second, 0);
  env.Advance(1ms);
  EXPECT_EQ(second, 1);
  EXPECT_EQ(first, 0);
}

// A callback that schedules a node due at once does not run it from the
// same wake (a call that always does would never let the wake end).
TEST(AsioTimersTest, ANodeACallbackSchedulesDueNowRunsOnTheNextWake) {
  struct Again {
    VirtualTimers* timers;
    Clock* clock;
    int runs = 0;
    static void Run(void* arg) noexcept {
      auto* a = static_cast<Again*>(arg);
      if (++a->runs < 3) a->timers->Schedule(a->clock->Now(), &Run, a);
    }
  };
  Env env;
  Again again{&env.timers, &env.clock};
  env.timers.Schedule(env.clock.Now(), &Again::Run, &again);
  env.io.restart();
  for (int wake = 1; wake <= 3; ++wake) {
    EXPECT_EQ(env.io.poll_one(), 1u);
    EXPECT_EQ(again.runs, wake);
  }
  EXPECT_EQ(env.io.poll(), 0u);
  EXPECT_EQ(again.runs, 3);
}

TEST(AsioTimersTest, ManyNodesDueTogetherAllRunInOneWake) {
  Env env;
  int fired = 0;
  for (int i = 0; i < 1000; ++i) {
    env.timers.Schedule(env.clock.Now() + (i % 10) * 100us, &Count, &fired);
  }
  env.clock.Advance(1ms);
  env.io.restart();
  EXPECT_EQ(env.io.poll_one(), 1u);
  EXPECT_EQ(fired, 1000);
  EXPECT_EQ(env.timers.arms(), 1u);
  EXPECT_EQ(env.io.poll(), 0u);
}

// A wake already queued when an earlier deadline re-arms the Asio timer is
// stale: the newer wait runs each callback once and re-arms for the rest.
TEST(AsioTimersTest, AReArmWhileAWakeIsQueuedRunsEachCallbackOnce) {
  Env env;
  std::vector<int> log;
  Logged a{&log, 10}, b{&log, 9}, c{&log, 30};
  env.timers.Schedule(env.clock.Now() + 10ms, &Logged::Run, &a);
  env.timers.Schedule(env.clock.Now() + 30ms, &Logged::Run, &c);
  env.clock.Advance(10ms);
  env.io.restart();
  // Queued before the poll, so it runs after the reactor has queued a's
  // wake and before that wake runs.
  asio::post(env.io, [&] { env.timers.Schedule(env.clock.Now() - 1ms, &Logged::Run, &b); });
  env.io.poll();
  EXPECT_EQ(log, std::vector<int>({9, 10}));
  EXPECT_EQ(env.timers.arms(), 3u);  // 10 ms, 9 ms, then 30 ms
  env.Advance(19ms);
  EXPECT_EQ(log.size(), 2u);
  env.Advance(1ms);
  EXPECT_EQ(log, std::vector<int>({9, 10, 30}));
}

// Destroyed with its wait still armed (nothing scheduled) while the context
// runs on (other work keeps it running): the aborted wait completes without
// touching the timers.
TEST(AsioTimersTest, DestroyedWithItsWaitArmedTheAbortedWaitTouchesNothing) {
  ManualClock clock;
  UseVirtualClock use{clock};
  asio::io_context io;
  auto other_work = asio::make_work_guard(io);
  int fired = 0;
  {
    VirtualTimers timers(io.get_executor(), clock);
    AsyncTimerHandle h = timers.Schedule(clock.Now() + 1s, &Count, &fired);
    EXPECT_TRUE(timers.Cancel(h));
  }
  EXPECT_EQ(io.poll(), 1u);
  EXPECT_EQ(fired, 0);
}

// Rounds of waits, some cancelled while queued and some by a callback of the
// same wake after they were taken as due: every node goes back to the pool.
TEST(AsioTimersTest, ThePoolStaysBoundedOverManyRounds) {
  struct CancelOther {
    VirtualTimers* timers;
    AsyncTimerHandle other;
    bool cancelled = false;
    static void Run(void* arg) noexcept {
      auto* c = static_cast<CancelOther*>(arg);
      c->cancelled = c->timers->Cancel(c->other);
    }
  };
  Env env;
  int fired = 0;
  int victim_ran = 0;
  for (int round = 0; round < 100; ++round) {
    CancelOther first{&env.timers, {}};
    env.timers.Schedule(env.clock.Now() + 1ms, &CancelOther::Run, &first);
    first.other = env.timers.Schedule(env.clock.Now() + 1ms, &Count, &victim_ran);
    std::vector<AsyncTimerHandle> handles;
    for (int i = 0; i < 20; ++i) {
      handles.push_back(env.timers.Schedule(env.clock.Now() + std::chrono::milliseconds(1 + i), &Count, &fired));
    }
    for (int i = 0; i < 20; i += 4) EXPECT_TRUE(env.timers.Cancel(handles[i]));
    env.Advance(20ms);
    EXPECT_TRUE(first.cancelled);
  }
  EXPECT_EQ(victim_ran, 0);
  EXPECT_EQ(fired, 100 * 15);
  EXPECT_EQ(env.timers.nodes(), 22u);
}

}  // namespace
}  // namespace stormguard::testkit
