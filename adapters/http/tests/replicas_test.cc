// The HTTP client with a replica set: each attempt to a replica the call
// has not tried, sick replicas ejected, the URL's name kept in Host.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "client_test_util.h"
#include "stormguard/http/client.h"
#include "test_server.h"
#include "testkit/wait_until.h"

namespace stormguard::http {
namespace {

using namespace std::chrono_literals;

// A replica that answers `status` (and, when `hold` is set, only once it is
// released) and counts its calls and the Host it was asked for.
struct Replica {
  explicit Replica(int status, bool hold = false) {
    srv.server.Get("/stock", [this, status, hold](const httplib::Request& req, httplib::Response& res) {
      ++calls;
      {
        std::lock_guard lock(mu);
        host = req.get_header_value("Host");
      }
      if (hold) released.wait_for(10s);  // bounded even if the test fails
      res.status = status;
      res.set_content(std::to_string(srv_port), "text/plain");
    });
    srv.Start();
    address = srv.Url("").substr(7);  // "127.0.0.1:port"
    srv_port = std::stoi(address.substr(address.find(':') + 1));
  }
  ~Replica() { Release(); }
  void Release() {
    if (!done.exchange(true)) release.set_value();
  }
  std::string Host() {
    std::lock_guard lock(mu);
    return host;
  }

  std::promise<void> release;  // before the server: its handler waits on it while the server joins
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> done{false};
  std::atomic<int> calls{0};
  std::mutex mu;
  std::string host;
  int srv_port = 0;
  testkit::TestServer srv;
  std::string address;
};

std::shared_ptr<ReplicaSet> SetOf(const std::vector<Replica*>& replicas, PickerKind picker = PickerKind::kRoundRobin) {
  std::vector<EndpointSpec> endpoints;
  for (Replica* r : replicas) endpoints.push_back({r->address});
  auto set = ReplicaSet::Create({.picker = picker, .outlier = {.consecutive_failures = 3}}, endpoints);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return std::shared_ptr<ReplicaSet>(std::move(set).value());
}

HttpClient ClientOf(PipelineRef pipeline, std::shared_ptr<ReplicaSet> replicas) {
  auto c = HttpClient::Create({.pipeline = std::move(pipeline), .replicas = std::move(replicas)});
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

PipelineRef TwoTries() { return testkit::RetryPipeline({.max_attempts = 2, .backoff = {.base = 1ms, .cap = 1ms}}); }

TEST(HttpReplicasTest, ARetryGoesToAnotherReplicaAndTheSickOneIsEjected) {
  Replica good_a(200), good_b(200), sick(502);
  auto set = SetOf({&good_a, &good_b, &sick});
  HttpClient client = ClientOf(TwoTries(), set);
  for (int i = 0; i < 30; ++i) {
    HttpResult r = client.Send({.url = "http://inventory/stock"});  // "inventory" resolves nowhere
    ASSERT_TRUE(r.ok()) << i << ": " << r.status.ToString();
    EXPECT_NE(r.endpoint, sick.address);
    EXPECT_LE(r.attempts, 2);
  }
  EXPECT_EQ(sick.calls, 3);  // three failures in a row, then ejected for 30 s
  EXPECT_EQ(good_a.calls + good_b.calls, 30);
  EXPECT_EQ(good_a.Host(), "inventory");  // the URL's name, the replica's address
  bool ejected = false;
  for (const auto& e : set->Endpoints()) ejected |= e.address == sick.address && e.ejected;
  EXPECT_TRUE(ejected);
}

TEST(HttpReplicasTest, AHedgeGoesToAnotherReplica) {
  Replica stuck(200, /*hold=*/true), quick(200);
  auto executor = Executor::Create();
  ASSERT_TRUE(executor.ok()) << executor.status().ToString();
  auto pipeline = testkit::Built(PipelineBuilder().AddHedge({.delay = 20ms}, std::move(executor).value()));
  HttpClient client = ClientOf(pipeline, SetOf({&stuck, &quick}));
  for (int i = 0; i < 4; ++i) {  // round robin: the primary lands on the stuck one every other call
    HttpResult r = client.Send({.url = "http://inventory/stock"});
    ASSERT_TRUE(r.ok()) << r.status.ToString();
    EXPECT_EQ(r.endpoint, quick.address);
  }
  EXPECT_EQ(quick.calls, 4);  // 2 primaries and 2 hedges: never a hedge to the stuck one
  EXPECT_EQ(stuck.calls, 2);
  stuck.Release();
}

TEST(HttpReplicasTest, AnEmptySetLeavesTheUrlsOwnAddress) {
  Replica direct(200);
  auto set = SetOf({});
  HttpClient client = ClientOf(TwoTries(), set);
  HttpResult r = client.Send({.url = direct.srv.Url("/stock")});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.endpoint, "");
  EXPECT_EQ(direct.calls, 1);
}

TEST(HttpReplicasTest, AMembershipChangeDropsNoCallInFlight) {
  Replica old_one(200, /*hold=*/true), new_one(200);
  auto set = SetOf({&old_one});
  HttpClient client = ClientOf(TwoTries(), set);
  auto in_flight = std::async(std::launch::async, [&] { return client.Send({.url = "http://inventory/stock"}); });
  ASSERT_TRUE(::stormguard::testkit::WaitUntil([&] { return old_one.calls.load() == 1; }, "the call's arrival"));
  ASSERT_TRUE(set->Update({{new_one.address}}).ok());
  HttpResult fresh = client.Send({.url = "http://inventory/stock"});
  EXPECT_EQ(fresh.endpoint, new_one.address);
  old_one.Release();
  HttpResult r = in_flight.get();
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.endpoint, old_one.address);
  EXPECT_EQ(r.attempts, 1);
}

}  // namespace
}  // namespace stormguard::http
