// Discovery against a real etcd: replicas register (in this process, or in
// a child process the test SIGKILLs), a discovery follows the prefix into a
// ReplicaSet, and the times to join and to leave are measured.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "discovery_fixture.h"
#include "helper_process.h"

namespace stormguard::config_sources::discovery_test {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

std::vector<std::string> AddressesOf(const ReplicaSet& set) {
  std::vector<std::string> out;
  for (const EndpointStatus& e : set.Endpoints()) out.push_back(e.address);
  return out;
}

long long MillisSince(SteadyClock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start).count();
}

class EtcdDiscoveryTest : public testkit::DiscoveryFixture {
 protected:
  bool SetIs(const std::vector<std::string>& addresses, std::chrono::milliseconds limit = 5000ms) {
    return testkit::Eventually([&] { return AddressesOf(*set_) == addresses; }, limit);
  }
};

TEST_F(EtcdDiscoveryTest, ARegisteredReplicaJoinsWithinASecond) {
  ASSERT_TRUE(testkit::Eventually([&] { return discovery_->stats().watch.watches == 1; }));
  const auto start = SteadyClock::now();
  auto replica = Register("127.0.0.1:8081");
  ASSERT_TRUE(SetIs({"127.0.0.1:8081"}, 1000ms)) << "joined in " << MillisSince(start) << " ms";
  std::printf("[ measured ] joined %lld ms after EtcdRegistration::Start\n", MillisSince(start));
  EXPECT_EQ(replica->stats().grants, 1u);
  EXPECT_NE(replica->stats().lease, 0);
}

TEST_F(EtcdDiscoveryTest, StopRevokesTheLeaseSoTheReplicaLeavesAtOnce) {
  auto stays = Register("127.0.0.1:8081");
  auto leaves = Register("127.0.0.1:8082", 60s);
  ASSERT_TRUE(SetIs({"127.0.0.1:8081", "127.0.0.1:8082"}));
  const auto start = SteadyClock::now();
  leaves->Stop();
  ASSERT_TRUE(SetIs({"127.0.0.1:8081"}, 1000ms)) << "left in " << MillisSince(start) << " ms";
  std::printf("[ measured ] left %lld ms after Stop (lease TTL 60 s)\n", MillisSince(start));
  EXPECT_EQ(leaves->stats().lease, 0);
}

TEST_F(EtcdDiscoveryTest, AReplicaKilledWithSigkillLeavesWithinItsLeaseTtl) {
  auto stays = Register("127.0.0.1:8081");
  testkit::ReplicaProcess killed(etcd_.endpoint(), testkit::kReplicaPrefix, "127.0.0.1:8082", /*ttl_seconds=*/2);
  ASSERT_TRUE(killed.started());
  ASSERT_TRUE(SetIs({"127.0.0.1:8081", "127.0.0.1:8082"}));
  const auto start = SteadyClock::now();
  killed.Kill();
  // The last renewal was at most TTL / 3 before the kill, but etcd looks
  // for expired leases only every 500 ms: allow a second past the TTL.
  ASSERT_TRUE(SetIs({"127.0.0.1:8081"}, 3000ms)) << "left in " << MillisSince(start) << " ms";
  std::printf("[ measured ] left %lld ms after SIGKILL (lease TTL 2 s)\n", MillisSince(start));
}

TEST_F(EtcdDiscoveryTest, ALostLeaseIsGrantedAgainAndTheKeyPutAgain) {
  auto replica = Register("127.0.0.1:8081", 3s);
  ASSERT_TRUE(SetIs({"127.0.0.1:8081"}));
  const std::int64_t first = replica->stats().lease;
  // What etcd does when a lease runs out while its holder is unreachable.
  ASSERT_TRUE(etcd_.RevokeLease(first));
  ASSERT_TRUE(testkit::Eventually([&] { return replica->stats().grants == 2; }, 3000ms));
  EXPECT_EQ(replica->stats().lost, 1u);
  EXPECT_NE(replica->stats().lease, first);
  EXPECT_TRUE(SetIs({"127.0.0.1:8081"}));
  // Meanwhile the key was gone: the set kept its last member.
  const std::vector<std::string> problems = Problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "etcd:/sg/replicas/inventory/: no valid replica under the prefix: keeping the last 1");
}

TEST_F(EtcdDiscoveryTest, BothSidesComeBackAfterEtcdRestarts) {
  auto replica = Register("127.0.0.1:8081", 3s);
  ASSERT_TRUE(SetIs({"127.0.0.1:8081"}));
  etcd_.Kill();
  ASSERT_TRUE(testkit::Eventually([&] { return replica->stats().failures > 0; }, 3000ms));
  ASSERT_TRUE(etcd_.Start());  // the same data: etcd keeps the lease and extends it
  auto joining = Register("127.0.0.1:8082", 3s);
  EXPECT_TRUE(SetIs({"127.0.0.1:8081", "127.0.0.1:8082"}, 10000ms));  // the watch resumed
  const std::uint64_t keepalives = replica->stats().keepalives;
  EXPECT_TRUE(testkit::Eventually([&] { return replica->stats().keepalives > keepalives; }, 3000ms));
  EXPECT_TRUE(Told("etcd:/sg/replicas/inventory/127.0.0.1:8081: "));  // the registration's failure
}

}  // namespace stormguard::config_sources::discovery_test
