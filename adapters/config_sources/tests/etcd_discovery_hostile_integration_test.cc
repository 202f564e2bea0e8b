// Discovery against a real etcd with broken and hostile keys under the
// prefix: each is skipped with its key and reason, the good ones are used,
// and nothing empties a good set.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "discovery_fixture.h"

namespace stormguard::config_sources::hostile_discovery_test {

using namespace std::chrono_literals;

class EtcdDiscoveryHostileTest : public testkit::DiscoveryFixture {
 protected:
  void SetUp() override {
    DiscoveryFixture::SetUp();
    if (HasFatalFailure()) return;
    good_ = Register("127.0.0.1:8081");
    ASSERT_TRUE(testkit::Eventually([&] { return set_->size() == 1; }));
  }

  std::unique_ptr<EtcdRegistration> good_;
};

TEST_F(EtcdDiscoveryHostileTest, BrokenValuesAreSkippedWithTheirKeyAndReason) {
  const std::string p = testkit::kReplicaPrefix;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {p + "127.0.0.1:9001", "not json"},
      {p + "127.0.0.1:9002", R"({"address": "127.0.0.1:9002", "weight": NaN})"},
      {p + "127.0.0.1:9003", R"({"address": "127.0.0.1:9003", "weight": 1e300})"},
      {p + "127.0.0.1:9004", R"({"address": "127.0.0.1:9999"})"},
      {p + "no port", R"({"address": "no port"})"},
      {p + "127.0.0.1:9005", std::string(1 << 20, 'x')},
  };
  for (const auto& [key, value] : bad) ASSERT_GT(etcd_.Put(key, value), 0) << key;
  ASSERT_GT(etcd_.Put(p + "127.0.0.1:8082", R"({"address": "127.0.0.1:8082", "weight": 2})"), 0);
  ASSERT_TRUE(testkit::Eventually([&] { return set_->size() == 2 && discovery_->skipped().size() == bad.size(); }));
  EXPECT_EQ(set_->Endpoints()[1].weight, 2.0);
  for (const auto& [key, value] : bad) EXPECT_TRUE(Told("etcd:" + key + ": skipped: ")) << key;
  EXPECT_TRUE(Told("127.0.0.1:9001: skipped: the value is not a JSON object"));
  EXPECT_TRUE(Told("127.0.0.1:9003: skipped: weight: must be in (0, 1e6]"));
  EXPECT_TRUE(Told("127.0.0.1:9004: skipped: the value's \"address\" is not the key's"));
  EXPECT_TRUE(Told("no port: skipped: the key's address: must be host:port"));
  EXPECT_TRUE(Told("127.0.0.1:9005: skipped: the value is 1048576 bytes, more than 4096"));
}

TEST_F(EtcdDiscoveryHostileTest, OnlyBrokenValuesLeftNeverEmptyTheSet) {
  ASSERT_GT(etcd_.Put(std::string(testkit::kReplicaPrefix) + "127.0.0.1:9001", "not json"), 0);
  good_->Stop();  // the only good key goes
  ASSERT_TRUE(testkit::Eventually([&] { return Told("no valid replica under the prefix: keeping the last 1"); }));
  EXPECT_EQ(set_->size(), 1u);
}

TEST_F(EtcdDiscoveryHostileTest, TooManyKeysAreAFailureAndTheSetKeepsItsMembers) {
  std::vector<std::pair<std::string, std::string>> batch;
  for (int i = 0; i <= 10000; ++i) {
    batch.emplace_back(std::string(testkit::kReplicaPrefix) + "flood-" + std::to_string(i), "x");
    if (batch.size() == 100 || i == 10000) {  // etcd takes at most 128 operations in one transaction
      ASSERT_GT(etcd_.PutAll(batch), 0);
      batch.clear();
    }
  }
  ASSERT_TRUE(testkit::Eventually([&] { return Told("the watched keys passed their bounds"); }, 10000ms));
  EXPECT_EQ(set_->size(), 1u);
  ASSERT_TRUE(etcd_.DeletePrefix(std::string(testkit::kReplicaPrefix) + "flood-"));
  auto second = Register("127.0.0.1:8082");
  EXPECT_TRUE(testkit::Eventually([&] { return set_->size() == 2; }, 10000ms));  // read again after a backoff
}

}  // namespace stormguard::config_sources::hostile_discovery_test
