// Discovery feeding a real HTTP client: replicas (cpp-httplib servers)
// register and deregister in etcd while a client calls in a loop, one
// attempt per call; no call may fail because the membership changed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client_test_util.h"
#include "etcd_process.h"
#include "eventually.h"
#include "stormguard/config_sources/etcd_discovery.h"
#include "stormguard/config_sources/etcd_registration.h"
#include "stormguard/http/client.h"
#include "test_server.h"

namespace stormguard::config_sources::http_discovery_test {

using namespace std::chrono_literals;

constexpr char kPrefix[] = "/sg/replicas/inventory/";

// A replica that answers 200 and counts its calls.
struct HttpReplica {
  HttpReplica() {
    srv.server.Get("/stock", [this](const httplib::Request&, httplib::Response& res) {
      ++calls;
      res.set_content("ok", "text/plain");
    });
    srv.Start();
    address = srv.Url("").substr(7);  // "127.0.0.1:port"
  }
  std::atomic<int> calls{0};
  http::testkit::TestServer srv;
  std::string address;
};

// Calls through `client` on its own thread until stopped; keeps every failure.
class CallLoop {
 public:
  explicit CallLoop(http::HttpClient& client)
      : thread_([this, &client] {
          while (!stop_) {
            http::HttpResult r = client.Send({.url = "http://inventory/stock"});
            ++calls_;
            if (!r.ok()) {
              std::lock_guard lock(mu_);
              failures_.push_back(r.status.ToString());
            }
          }
        }) {}
  ~CallLoop() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int calls() const { return calls_; }
  std::vector<std::string> failures() {
    std::lock_guard lock(mu_);
    return failures_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> calls_{0};
  std::mutex mu_;
  std::vector<std::string> failures_;
  std::thread thread_;
};

bool InSet(const ReplicaSet& set, const std::string& address) {
  for (const EndpointStatus& e : set.Endpoints()) {
    if (e.address == address) return true;
  }
  return false;
}

TEST(EtcdDiscoveryHttpTest, NoCallFailsForAMembershipChange) {
  testkit::EtcdProcess etcd;
  ASSERT_TRUE(etcd.Start());
  auto set = std::shared_ptr<ReplicaSet>(ReplicaSet::Create({.picker = PickerKind::kRoundRobin}).value());
  auto discovery = EtcdDiscovery::Start({.etcd = {.endpoint = etcd.endpoint(), .key = kPrefix, .seed = 7}}, set);
  ASSERT_TRUE(discovery.ok()) << discovery.status().ToString();
  std::vector<std::unique_ptr<HttpReplica>> replicas;
  for (int i = 0; i < 4; ++i) replicas.push_back(std::make_unique<HttpReplica>());
  const auto registration = [&](int i) {
    return EtcdRegistration::Start({.etcd = {.endpoint = etcd.endpoint(), .key = kPrefix, .seed = 11},
                                    .address = replicas[i]->address})
        .value();
  };
  std::map<int, std::unique_ptr<EtcdRegistration>> registered;
  registered[0] = registration(0);
  ASSERT_TRUE(testkit::Eventually([&] { return set->size() == 1; }));

  auto client =
      http::HttpClient::Create({.pipeline = http::testkit::RetryPipeline({.max_attempts = 1}), .replicas = set});
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  CallLoop loop(*client);
  // Each round: the next replica joins, then the oldest leaves (Stop), so
  // one to two replicas serve at any time and every one of them leaves once.
  for (int round = 1; round < 8; ++round) {
    const int joining = round % 4, leaving = (round + 3) % 4;
    registered[joining] = registration(joining);
    ASSERT_TRUE(testkit::Eventually([&] { return InSet(*set, replicas[joining]->address); }, 1000ms)) << round;
    const int before = replicas[joining]->calls;
    ASSERT_TRUE(testkit::Eventually([&] { return replicas[joining]->calls > before; })) << "no call reached it";
    registered.erase(leaving);  // Stop: the lease is revoked
    ASSERT_TRUE(testkit::Eventually([&] { return !InSet(*set, replicas[leaving]->address); }, 1000ms)) << round;
  }
  ASSERT_TRUE(testkit::Eventually([&] { return loop.calls() > 100; }));
  loop.Stop();
  EXPECT_EQ(loop.failures(), std::vector<std::string>{});
  std::printf("[ measured ] %d calls over 7 joins and 7 leaves, %zu failed\n", loop.calls(), loop.failures().size());
}

}  // namespace stormguard::config_sources::http_discovery_test
