// AsyncCurlClient::Send with a CallRouting: each exchange of one call to a
// replica it has not tried; a failing replica is ejected.
#include <gtest/gtest.h>

#include <asio/use_awaitable.hpp>
#include <atomic>
#include <memory>
#include <string>

#include "async_test_util.h"
#include "stormguard/asio/async_curl_client.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using testkit::RunBounded;
using testkit::TestServer;

struct AsyncReplica {
  explicit AsyncReplica(int status) {
    srv.server.Get("/stock", [this, status](const httplib::Request& req, httplib::Response& res) {
      ++calls;
      host_seen = req.get_header_value("Host") == "inventory";
      res.status = status;
      res.set_content("ok", "text/plain");
    });
    srv.Start();
    address = srv.Url("").substr(7);  // "127.0.0.1:port"
  }
  std::atomic<int> calls{0};
  std::atomic<bool> host_seen{false};
  TestServer srv;
  std::string address;
};

// Up to two exchanges of one call: the second only after a failure, on the
// same routing, as a retry would.
asio::awaitable<void> CallTwice(AsyncCurlClient& client, ReplicaSet& set, std::string& answered_by) {
  CallRouting routing(&set);
  for (int attempt = 1; attempt <= 2; ++attempt) {
    CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 2s), .attempt = attempt};
    // Named, not a temporary in the co_await: GCC 12 mishandles temporaries
    // with destructors in a co_await's full expression.
    HttpRequest request{.url = "http://inventory/stock"};
    HttpResult r = co_await client.Send(ctx, std::move(request), routing);
    if (r.ok()) {
      answered_by = r.endpoint;
      co_return;
    }
  }
}

TEST(AsyncReplicasTest, ARetryGoesToAnotherReplicaAndTheSickOneIsEjected) {
  AsyncReplica good(200), sick(502);
  auto set = ReplicaSet::Create({.picker = PickerKind::kRoundRobin, .outlier = {.consecutive_failures = 3}},
                                {{good.address}, {sick.address}})
                 .value();
  asio::io_context io;
  auto client = AsyncCurlClient::Create(io, {}).value();
  for (int i = 0; i < 20; ++i) {
    std::string answered_by;
    RunBounded(io, CallTwice(*client, *set, answered_by));
    io.restart();
    EXPECT_EQ(answered_by, good.address) << i;
  }
  EXPECT_EQ(sick.calls, 3);
  EXPECT_EQ(good.calls, 20);
  EXPECT_TRUE(good.host_seen);
}

}  // namespace
}  // namespace stormguard::http
