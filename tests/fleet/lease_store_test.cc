#include "stormguard/fleet/lease_store.h"

#include <gtest/gtest.h>

#include <numeric>

namespace stormguard {
namespace {

using namespace std::chrono_literals;

TEST(FairSharesTest, NobodyGetsMoreThanItAsksAndTheRestIsSplit) {
  const std::vector<double> demands = {20, 40, 60, 80, 100, 120, 140, 160};
  const std::vector<double> shares = FairShares(360, demands);
  // Level 45: 20 and 40 are served; 300 left for six instances: 50 each.
  EXPECT_EQ(shares, (std::vector<double>{20, 40, 50, 50, 50, 50, 50, 50}));
}

TEST(FairSharesTest, UnderSubscribedCapacityServesEveryDemand) {
  const std::vector<double> demands = {5, 0, 10};
  EXPECT_EQ(FairShares(100, demands), demands);
}

TEST(FairSharesTest, SumNeverExceedsCapacityAndNegativesGetNothing) {
  const std::vector<double> demands = {-5, 1e300, 7, 1e9};
  const std::vector<double> shares = FairShares(1000, demands);
  EXPECT_EQ(shares[0], 0);
  EXPECT_EQ(shares[2], 7);
  EXPECT_LE(std::accumulate(shares.begin(), shares.end(), 0.0), 1000.0);
  EXPECT_DOUBLE_EQ(shares[1], 496.5);
}

TEST(InMemoryLeaseStoreTest, NewcomerWaitsForTheHoldersToGiveBack) {
  InMemoryLeaseStore store(100, 4s);
  const TimePoint t0 = TimePoint(1h);
  EXPECT_EQ(store.Refresh("a", 100, t0)->rate, 100);
  // b's fair share is 50, but a holds everything until it refreshes.
  Result<Lease> b = store.Refresh("b", 100, t0 + 1s);
  EXPECT_EQ(b->rate, 0);
  EXPECT_EQ(b->instances, 2);
  EXPECT_EQ(store.Refresh("a", 100, t0 + 2s)->rate, 50);
  EXPECT_EQ(store.Refresh("b", 100, t0 + 2s)->rate, 50);
  EXPECT_EQ(store.Refresh("b", 100, t0 + 3s)->expiry, t0 + 7s);
}

// a's lease runs out at 4 s: it may be cut off and spending its static
// share on its own, so the store keeps that for it two more leases, then
// forgets it.
TEST(InMemoryLeaseStoreTest, ASilentInstanceKeepsItsStaticShareForOneMoreLeaseThenIsDropped) {
  InMemoryLeaseStore store(100, 4s);
  const TimePoint t0 = TimePoint(1h);
  (void)store.Refresh("a", 100, t0);
  (void)store.Refresh("b", 100, t0);
  Result<Lease> b = store.Refresh("b", 100, t0 + 5s);
  EXPECT_EQ(b->instances, 2);
  EXPECT_EQ(b->rate, 50);  // 100 / 2 held for silent a
  b = store.Refresh("b", 100, t0 + 11s);
  EXPECT_EQ(b->instances, 2);
  b = store.Refresh("b", 100, t0 + 12s);
  EXPECT_EQ(b->instances, 1);
  EXPECT_EQ(b->rate, 100);
}

TEST(InMemoryLeaseStoreTest, ASilentInstanceThatWantedLittleKeepsOnlyWhatItWanted) {
  InMemoryLeaseStore store(100, 4s);
  const TimePoint t0 = TimePoint(1h);
  (void)store.Refresh("a", 10, t0);
  (void)store.Refresh("b", 100, t0);
  EXPECT_EQ(store.Refresh("b", 100, t0 + 5s)->rate, 90);
}

}  // namespace
}  // namespace stormguard
