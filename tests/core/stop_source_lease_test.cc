#include "stormguard/core/stop_source_lease.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace stormguard {
namespace {

TEST(StopSourceLeaseTest, ALeaseReusesTheSourceOfTheLastOne) {
  std::stop_source first{std::nostopstate};
  {
    StopSourceLease lease;
    first = lease.source();
  }
  StopSourceLease again;
  EXPECT_TRUE(again.source() == first);
  EXPECT_FALSE(again.source().stop_requested());
}

TEST(StopSourceLeaseTest, NestedLeasesLendDistinctSources) {
  StopSourceLease outer;
  StopSourceLease inner;
  EXPECT_FALSE(outer.source() == inner.source());
  outer.source().request_stop();
  EXPECT_FALSE(inner.token().stop_requested());
}

TEST(StopSourceLeaseTest, AStoppedSourceIsNeverLentAgain) {
  std::stop_source stopped{std::nostopstate};  // a copy keeps its state (and address) alive
  {
    StopSourceLease lease;
    stopped = lease.source();
    lease.source().request_stop();
  }
  for (int i = 0; i < 20; ++i) {
    StopSourceLease lease;
    EXPECT_FALSE(lease.source() == stopped);
    EXPECT_FALSE(lease.token().stop_requested());
  }
}

TEST(StopSourceLeaseTest, ASourceWhoseTokenWasReplacedIsNotLentAgain) {
  std::stop_source other;
  std::stop_source replaced{std::nostopstate};
  {
    StopSourceLease lease;
    replaced = lease.source();
    lease.token() = other.get_token();  // as a callable that assigned ctx.stop would leave it
  }
  StopSourceLease lease;
  EXPECT_FALSE(lease.source() == replaced);
  EXPECT_TRUE(lease.token().stop_possible());
  other.request_stop();
  EXPECT_FALSE(lease.token().stop_requested());  // its own token, not the other's
}

TEST(StopSourceLeaseTest, MoreNestedLeasesThanPooledStillWork) {
  std::vector<std::unique_ptr<StopSourceLease>> leases;
  for (int i = 0; i < 12; ++i) leases.push_back(std::make_unique<StopSourceLease>());
  leases.back()->source().request_stop();
  EXPECT_TRUE(leases.back()->token().stop_requested());
  EXPECT_FALSE(leases.front()->token().stop_requested());
}

TEST(PooledStopTest, AReturnedSourceServesTheNextTake) {
  PooledStop s = TakePooledStop();
  const std::stop_source kept = s.source;
  ReturnPooledStop(std::move(s));
  PooledStop again = TakePooledStop();
  EXPECT_TRUE(again.source == kept);
  EXPECT_TRUE(again.Reusable());
  ReturnPooledStop(std::move(again));
}

TEST(PooledStopTest, AStoppedSourceIsNeverTakenAgain) {
  PooledStop s = TakePooledStop();
  const std::stop_source stopped = s.source;
  s.source.request_stop();
  ReturnPooledStop(std::move(s));
  std::vector<PooledStop> taken;
  for (int i = 0; i < 20; ++i) {
    taken.push_back(TakePooledStop());
    EXPECT_FALSE(taken.back().source == stopped);
    EXPECT_FALSE(taken.back().token.stop_requested());
  }
  for (PooledStop& t : taken) ReturnPooledStop(std::move(t));
}

TEST(PooledStopTest, ASourceWhoseTokenWasReplacedIsNotReturnedToThePool) {
  std::stop_source other;
  PooledStop s = TakePooledStop();
  const std::stop_source replaced = s.source;
  s.token = other.get_token();
  EXPECT_FALSE(s.Reusable());
  ReturnPooledStop(std::move(s));
  PooledStop next = TakePooledStop();
  EXPECT_FALSE(next.source == replaced);
  ReturnPooledStop(std::move(next));
}

TEST(PooledStopTest, ASourceReturnedOnAnotherThreadJoinsThatThreadsPool) {
  PooledStop s = TakePooledStop();
  const std::stop_source kept = s.source;
  std::thread([&s, &kept] {
    ReturnPooledStop(std::move(s));
    PooledStop again = TakePooledStop();
    EXPECT_TRUE(again.source == kept);
    ReturnPooledStop(std::move(again));
  }).join();                               // the thread's pool releases it at exit
  EXPECT_FALSE(s.source.stop_possible());  // moved out
}

TEST(PooledStopTest, APoolKeepsAtMostSixteen) {
  std::thread([] {  // a new thread's pool starts empty
    std::vector<PooledStop> taken(20);
    std::vector<std::stop_source> kept;
    for (PooledStop& t : taken) {
      t = TakePooledStop();
      kept.push_back(t.source);
    }
    for (PooledStop& t : taken) ReturnPooledStop(std::move(t));
    int reused = 0;
    for (PooledStop& t : taken) {
      t = TakePooledStop();
      for (const std::stop_source& k : kept) reused += t.source == k ? 1 : 0;
    }
    EXPECT_EQ(reused, 16);
    for (PooledStop& t : taken) ReturnPooledStop(std::move(t));
  })
      .join();
}

}  // namespace
}  // namespace stormguard
