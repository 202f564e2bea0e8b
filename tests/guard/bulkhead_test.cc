#include "stormguard/guard/bulkhead.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "testkit/recording_listener.h"
#include "testkit/time_points.h"
#include "testkit/wait_until.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using SleepMode = ManualClock::SleepMode;

using testkit::kT0;

std::shared_ptr<Bulkhead> Make(const BulkheadOptions& o) {
  auto r = Bulkhead::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

void AwaitWaiting(const Bulkhead& b, int n) {
  ASSERT_TRUE(testkit::WaitUntil([&] { return b.stats().waiting >= n; }, "a waiter queueing"));
}

TEST(BulkheadTest, ValidateNamesEveryBadField) {
  auto r = Bulkhead::Create({.max_concurrent = 0, .max_wait = -1ms});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("max_concurrent: must be at least 1"));
  EXPECT_THAT(r.status().message(), HasSubstr("max_wait: must not be negative"));
}

TEST(BulkheadTest, TryAcquireGrantsUpToMaxThenRejectsWithReason) {
  testkit::RecordingListener listener;
  auto bulkhead = Make({.max_concurrent = 2, .listener = &listener});
  auto a = bulkhead->TryAcquire(kT0);
  auto b = bulkhead->TryAcquire(kT0);
  ASSERT_TRUE(a.ok() && b.ok());
  auto c = bulkhead->TryAcquire(kT0 + 1ms);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(c.status().source(), "bulkhead");
  EXPECT_EQ(c.status().message(), "bulkhead full: 2/2 in use, waited 0s");
  EXPECT_EQ(bulkhead->stats().in_use, 2);
  EXPECT_EQ(bulkhead->stats().rejected, 1);
  auto events = listener.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kRejected);
  EXPECT_EQ(events[0].policy, PolicyId::kBulkhead);
  EXPECT_EQ(events[0].at, kT0 + 1ms);
}

TEST(BulkheadTest, PermitGivesItsSlotBackOnceWhenDestroyedOrReleased) {
  auto bulkhead = Make({.max_concurrent = 1});
  {
    BulkheadPermit outer;
    {
      auto p = bulkhead->TryAcquire(kT0);
      ASSERT_TRUE(p.ok());
      outer = std::move(*p);  // the moved-from permit owns nothing
    }
    EXPECT_TRUE(outer.valid());
    EXPECT_EQ(bulkhead->stats().in_use, 1);
    EXPECT_FALSE(bulkhead->TryAcquire(kT0).ok());
  }
  EXPECT_EQ(bulkhead->stats().in_use, 0);
  auto p = bulkhead->TryAcquire(kT0);
  ASSERT_TRUE(p.ok());
  p->Release();
  p->Release();
  EXPECT_FALSE(p->valid());
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

TEST(BulkheadTest, MoveAssigningOntoAPermitThatHoldsASlotReleasesTheOldSlot) {
  auto first = Make({.max_concurrent = 1});
  auto second = Make({.max_concurrent = 1});
  auto held = first->TryAcquire(kT0);
  auto incoming = second->TryAcquire(kT0);
  ASSERT_TRUE(held.ok() && incoming.ok());
  *held = std::move(*incoming);
  EXPECT_EQ(first->stats().in_use, 0);  // the overwritten slot went back to its own bulkhead
  EXPECT_TRUE(first->TryAcquire(kT0).ok());
  EXPECT_EQ(second->stats().in_use, 1);
  EXPECT_TRUE(held->valid());
  EXPECT_FALSE(incoming->valid());
  held->Release();
  EXPECT_EQ(second->stats().in_use, 0);
}

TEST(BulkheadTest, AbandonedWorkHoldsItsSlotUntilItReallyEnds) {
  testkit::RecordingListener listener;
  auto bulkhead = Make({.max_concurrent = 1, .listener = &listener});
  auto held = bulkhead->TryAcquire(kT0);
  ASSERT_TRUE(held.ok());
  // The caller's timeout fired; the callee ignores cancellation and runs on.
  held->MarkAbandoned(kT0 + 2s);
  held->MarkAbandoned(kT0 + 2s);  // counted once
  EXPECT_TRUE(held->abandoned());
  BulkheadStats s = bulkhead->stats();
  EXPECT_EQ(s.in_use, 1);
  EXPECT_EQ(s.abandoned, 1);
  EXPECT_EQ(s.abandoned_total, 1);
  EXPECT_FALSE(bulkhead->TryAcquire(kT0 + 3s).ok());  // still taken

  std::atomic<bool> done{false};
  // The running work owns the permit now (it keeps its abandoned mark).
  std::thread running([&done, p = std::move(*held)]() mutable {
    EXPECT_TRUE(testkit::WaitUntil([&] { return done.load(); }, "the test's go to end the work"));
    p.Release();  // the work really ends here
  });
  EXPECT_FALSE(bulkhead->TryAcquire(kT0 + 4s).ok());
  EXPECT_EQ(bulkhead->stats().abandoned, 1);
  done.store(true);
  running.join();
  s = bulkhead->stats();
  EXPECT_EQ(s.in_use, 0);
  EXPECT_EQ(s.abandoned, 0);
  EXPECT_EQ(s.abandoned_total, 1);
  EXPECT_TRUE(bulkhead->TryAcquire(kT0 + 5s).ok());
  auto events = listener.events();
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const Event& e) { return e.kind == EventKind::kAbandoned; }),
            1);
}

TEST(BulkheadTest, WaitingAcquireWakesWhenASlotFrees) {
  ManualClock clock(kT0, SleepMode::kBlockOnSleep);
  auto bulkhead = Make({.max_concurrent = 1, .max_wait = 50ms});
  auto held = bulkhead->TryAcquire(kT0);
  ASSERT_TRUE(held.ok());
  std::optional<Result<BulkheadPermit>> got;
  std::thread waiter([&] { got.emplace(bulkhead->Acquire(clock)); });
  AwaitWaiting(*bulkhead, 1);
  held->Release();
  waiter.join();
  ASSERT_TRUE(got->ok()) << got->status().ToString();
  EXPECT_EQ(clock.Now(), kT0);  // no time had to pass
  BulkheadStats s = bulkhead->stats();
  EXPECT_EQ(s.in_use, 1);
  EXPECT_EQ(s.waiting, 0);
  EXPECT_EQ(s.rejected, 0);
}

TEST(BulkheadTest, WaitingAcquireGivesUpAtMaxWait) {
  ManualClock clock(kT0, SleepMode::kBlockOnSleep);
  auto bulkhead = Make({.max_concurrent = 1, .max_wait = 50ms});
  auto held = bulkhead->TryAcquire(kT0);
  std::optional<Result<BulkheadPermit>> got;
  std::thread waiter([&] { got.emplace(bulkhead->Acquire(clock)); });
  AwaitWaiting(*bulkhead, 1);
  clock.Advance(50ms);
  waiter.join();
  ASSERT_FALSE(got->ok());
  EXPECT_EQ(got->status().message(), "bulkhead full: 1/1 in use, waited 50ms");
  EXPECT_EQ(bulkhead->stats().waiting, 0);
  EXPECT_EQ(bulkhead->stats().rejected, 1);
}

TEST(BulkheadTest, WaitingAcquireReturnsCancelledWhenStopped) {
  ManualClock clock(kT0, SleepMode::kBlockOnSleep);
  auto bulkhead = Make({.max_concurrent = 1, .max_wait = 1h});
  auto held = bulkhead->TryAcquire(kT0);
  std::stop_source stop;
  std::optional<Result<BulkheadPermit>> got;
  std::thread waiter([&] { got.emplace(bulkhead->Acquire(clock, stop.get_token())); });
  AwaitWaiting(*bulkhead, 1);
  stop.request_stop();
  waiter.join();
  EXPECT_EQ(got->status().code(), StatusCode::kCancelled);
  EXPECT_EQ(got->status().source(), "bulkhead");
  BulkheadStats s = bulkhead->stats();
  EXPECT_EQ(s.waiting, 0);
  EXPECT_EQ(s.in_use, 1);
  EXPECT_EQ(s.rejected, 0);
  EXPECT_EQ(bulkhead->Acquire(clock, stop.get_token()).status().code(), StatusCode::kCancelled);
}

TEST(BulkheadTest, ZeroMaxWaitAndVirtualSleepRefuseWithoutBlocking) {
  ManualClock blocking(kT0, SleepMode::kBlockOnSleep);
  auto no_wait = Make({.max_concurrent = 1});
  auto a = no_wait->Acquire(blocking);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(no_wait->Acquire(blocking).status().message(), "bulkhead full: 1/1 in use, waited 0s");

  // In kAdvanceOnSleep mode the wait jumps straight to its deadline.
  ManualClock virtual_clock(kT0);
  auto waits = Make({.max_concurrent = 1, .max_wait = 30ms});
  auto b = waits->Acquire(virtual_clock);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(waits->Acquire(virtual_clock).status().message(), "bulkhead full: 1/1 in use, waited 30ms");
  EXPECT_EQ(virtual_clock.Now(), kT0 + 30ms);
}

TEST(BulkheadTest, WaitersAreServedInArrivalOrder) {
  ManualClock clock(kT0, SleepMode::kBlockOnSleep);
  auto bulkhead = Make({.max_concurrent = 1, .max_wait = 1h});
  auto held = bulkhead->TryAcquire(kT0);
  std::vector<int> order;
  std::mutex mu;
  auto wait_then_record = [&](int id) {
    auto p = bulkhead->Acquire(clock);
    ASSERT_TRUE(p.ok());
    std::lock_guard lock(mu);
    order.push_back(id);
  };
  std::thread first(wait_then_record, 1);
  AwaitWaiting(*bulkhead, 1);
  std::thread second(wait_then_record, 2);
  AwaitWaiting(*bulkhead, 2);
  held->Release();
  first.join();  // 1 got the slot, recorded, and released it to 2
  second.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

// Runs `threads` x `iterations` calls of `acquire` and checks how many ran
// at once with an independent atomic counter.
template <class Acquire>
void RunContended(Bulkhead& bulkhead, int threads, int iterations, Acquire acquire, int* max_seen, int* admitted) {
  std::atomic<int> active{0}, peak{0}, ok{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = 0; i < iterations; ++i) {
        Result<BulkheadPermit> p = acquire();
        if (!p.ok()) continue;
        const int now_active = active.fetch_add(1) + 1;
        int prev = peak.load();
        while (now_active > prev && !peak.compare_exchange_weak(prev, now_active)) {
        }
        ok.fetch_add(1);
        std::this_thread::yield();  // hold the slot a moment so others queue up
        active.fetch_sub(1);
      }
    });
  }
  for (auto& th : pool) th.join();
  *max_seen = peak.load();
  *admitted = ok.load();
  EXPECT_EQ(bulkhead.stats().in_use, 0);
  EXPECT_EQ(bulkhead.stats().waiting, 0);
}

TEST(BulkheadTest, ContendedTryAcquireNeverExceedsMaxConcurrent) {
  auto bulkhead = Make({.max_concurrent = 3});
  int peak = 0, admitted = 0;
  RunContended(
      *bulkhead, 8, 5000, [&] { return bulkhead->TryAcquire(kT0); }, &peak, &admitted);
  EXPECT_LE(peak, 3);
  EXPECT_GT(admitted, 0);
  EXPECT_EQ(admitted + bulkhead->stats().rejected, 8 * 5000);
}

TEST(BulkheadTest, ContendedWaitingAcquireAdmitsEveryoneWithinMaxConcurrent) {
  ManualClock clock(kT0, SleepMode::kBlockOnSleep);  // time never moves: nobody times out
  auto bulkhead = Make({.max_concurrent = 3, .max_wait = 1h});
  int peak = 0, admitted = 0;
  RunContended(
      *bulkhead, 8, 500, [&] { return bulkhead->Acquire(clock); }, &peak, &admitted);
  EXPECT_LE(peak, 3);
  EXPECT_EQ(admitted, 8 * 500);
  EXPECT_EQ(bulkhead->stats().rejected, 0);
}

TEST(BulkheadTest, StripedBulkheadLendsEveryStripesSlotsToOneThread) {
  auto bulkhead = Make({.max_concurrent = 7, .stripes = 4});  // stripes of 2, 2, 2, 1
  ASSERT_EQ(bulkhead->stripes(), 4);
  std::vector<BulkheadPermit> held;
  for (int i = 0; i < 7; ++i) {
    auto p = bulkhead->TryAcquire(kT0);
    ASSERT_TRUE(p.ok()) << i;
    held.push_back(std::move(p).value());
  }
  auto refused = bulkhead->TryAcquire(kT0);
  EXPECT_EQ(refused.status().message(), "bulkhead full: 7/7 in use, waited 0s");
  held.erase(held.begin() + 3);  // its slot goes back to the stripe it came from
  EXPECT_EQ(bulkhead->stats().in_use, 6);
  EXPECT_TRUE(bulkhead->TryAcquire(kT0).ok());
  held.clear();
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

TEST(BulkheadTest, AutomaticStripesKeepSmallBulkheadsExact) {
  EXPECT_EQ(Make({.max_concurrent = 15})->stripes(), 1);
  EXPECT_EQ(Make({.max_concurrent = 3, .stripes = 8})->stripes(), 2);  // one slot per stripe at least
  EXPECT_GE(Make({.max_concurrent = 1000})->stripes(), 1);
  auto bad = Bulkhead::Create({.stripes = 65});
  EXPECT_THAT(bad.status().message(), HasSubstr("stripes: must be 0 (automatic) or in [1, 64]"));
}

TEST(BulkheadTest, ContendedStripedBulkheadNeverExceedsMaxConcurrent) {
  auto bulkhead = Make({.max_concurrent = 6, .stripes = 4});
  int peak = 0, admitted = 0;
  RunContended(
      *bulkhead, 8, 5000, [&] { return bulkhead->TryAcquire(kT0); }, &peak, &admitted);
  EXPECT_LE(peak, 6);
  EXPECT_EQ(admitted + bulkhead->stats().rejected, 8 * 5000);
}

TEST(BulkheadTest, ContendedStripedWaitersAreAllAdmitted) {
  ManualClock clock(kT0, SleepMode::kBlockOnSleep);
  auto bulkhead = Make({.max_concurrent = 4, .max_wait = 1h, .stripes = 4});
  int peak = 0, admitted = 0;
  RunContended(
      *bulkhead, 8, 500, [&] { return bulkhead->Acquire(clock); }, &peak, &admitted);
  EXPECT_LE(peak, 4);
  EXPECT_EQ(admitted, 8 * 500);
}

TEST(BulkheadTest, TryTakeSlotGivesASlotOrAnEmptyPermitWithoutRefusing) {
  testkit::RecordingListener listener;
  auto bulkhead = Make({.max_concurrent = 2, .listener = &listener});
  BulkheadPermit a = bulkhead->TryTakeSlot();
  BulkheadPermit b = bulkhead->TryTakeSlot();
  BulkheadPermit c = bulkhead->TryTakeSlot();
  EXPECT_TRUE(a.valid());
  EXPECT_TRUE(b.valid());
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(bulkhead->stats().in_use, 2);
  EXPECT_EQ(bulkhead->stats().rejected, 0);
  EXPECT_TRUE(listener.events().empty());
  a.Release();
  EXPECT_EQ(bulkhead->stats().in_use, 1);
  EXPECT_TRUE(bulkhead->TryTakeSlot().valid());
  EXPECT_EQ(bulkhead->stats().in_use, 1);  // the temporary permit gave its slot back
}

// TryTakeSlot first tries the thread's own stripe inline; when that one is
// full it must still find a free slot in any other.
TEST(BulkheadTest, TryTakeSlotFindsTheFreeSlotOfAnyStripe) {
  auto bulkhead = Make({.max_concurrent = 4, .stripes = 4});  // one slot per stripe
  ASSERT_EQ(bulkhead->stripes(), 4);
  std::vector<BulkheadPermit> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(bulkhead->TryTakeSlot());
    EXPECT_TRUE(held.back().valid()) << i;
  }
  EXPECT_FALSE(bulkhead->TryTakeSlot().valid());
  for (int i = 0; i < 4; ++i) {  // whichever stripe frees up, the slot is found
    held[static_cast<std::size_t>(i)].Release();
    held[static_cast<std::size_t>(i)] = bulkhead->TryTakeSlot();
    EXPECT_TRUE(held[static_cast<std::size_t>(i)].valid()) << i;
  }
  EXPECT_EQ(bulkhead->stats().in_use, 4);
}

}  // namespace
}  // namespace stormguard
