// HttpClient and Middleware given a live handle (registry.Follow) on real
// loopback servers: each call runs on the configuration in force when it
// starts, a call in flight keeps its own, and a reload cannot make either
// side repeat what must run once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "follow_testing.h"
#include "middleware_test_util.h"
#include "stormguard/config/registry.h"
#include "stormguard/http/client.h"
#include "stormguard/http/server.h"
#include "test_server.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using reload_testing::ExpectRefusedAsRepeatingEveryCall;
using reload_testing::FirstCallHeld;
using reload_testing::Reload;
using testkit::MakeMiddleware;

HttpClient MakeFollowingClient(PipelineRef pipeline) {
  auto c = HttpClient::Create({.pipeline = std::move(pipeline)});
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

// A server that answers every GET and POST with 503, counting each.
struct Unavailable {
  Unavailable() {
    const auto answer = [this](const httplib::Request& req, httplib::Response& res) {
      ++(req.method == "GET" ? gets : posts);
      res.status = 503;
    };
    srv.server.Get("/stock", answer);
    srv.server.Post("/charge", answer);
    srv.Start();
  }
  std::atomic<int> gets{0}, posts{0};
  testkit::TestServer srv;  // last: stops before the counters go
};

TEST(HttpFollowReload, ClientTakesEachReload) {
  config::Registry registry;
  Reload(registry, reload_testing::kOneAttempt);
  Unavailable s;
  const HttpClient client = MakeFollowingClient(registry.Follow("d"));
  EXPECT_EQ(client.Send({.url = s.srv.Url("/stock")}).attempts, 1);
  Reload(registry, reload_testing::kThreeAttempts);
  EXPECT_EQ(client.Send({.url = s.srv.Url("/stock")}).attempts, 3);
  EXPECT_EQ(s.gets.load(), 4);
}

TEST(HttpFollowReload, ClientCallInFlightFinishesOnThePipelineItStartedOn) {
  config::Registry registry;
  Reload(registry, reload_testing::kOneAttempt);
  FirstCallHeld held;
  testkit::TestServer srv;
  srv.server.Get("/stock", [&](const httplib::Request&, httplib::Response& res) {
    held.Arrive();
    res.status = 503;
  });
  srv.Start();
  const HttpClient client = MakeFollowingClient(registry.Follow("d"));
  auto first = std::async(std::launch::async, [&] { return client.Send({.url = srv.Url("/stock")}); });
  ASSERT_TRUE(held.WaitForFirst());
  Reload(registry, reload_testing::kThreeAttempts);
  held.Release();
  ASSERT_EQ(first.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(first.get().attempts, 1);  // started on one attempt
  EXPECT_EQ(client.Send({.url = srv.Url("/stock")}).attempts, 3);
  EXPECT_EQ(held.arrivals(), 4);
}

// The reload makes the retry claim every call idempotent: the client still
// decides per request, so a POST without a key goes once and a GET three times.
TEST(HttpFollowReload, PostWithoutKeyIsSentOnceWhateverAReloadedRetryClaims) {
  config::Registry registry;
  Reload(registry, reload_testing::kOneAttempt);
  Unavailable s;
  const HttpClient client = MakeFollowingClient(registry.Follow("d"));  // accepted: nothing claims idempotency yet
  Reload(registry, reload_testing::kIdempotentRetry);
  const HttpResult post = client.Send({.method = "POST", .url = s.srv.Url("/charge"), .body = "{}"});
  EXPECT_EQ(post.attempts, 1);
  EXPECT_EQ(s.posts.load(), 1);
  EXPECT_EQ(client.Send({.url = s.srv.Url("/stock")}).attempts, 3);
  EXPECT_EQ(s.gets.load(), 3);
}

TEST(HttpFollowReload, CreateRefusesARetryOrHedgeThatClaimsEveryCallIdempotent) {
  for (const auto& [pipeline, stage] : reload_testing::PipelinesClaimingEveryCallIdempotent()) {
    ExpectRefusedAsRepeatingEveryCall(HttpClient::Create({.pipeline = pipeline}).status(), stage);
  }
  // A live handle is judged by the configuration in force at Create.
  config::Registry registry;
  Reload(registry, reload_testing::kIdempotentRetry);
  ExpectRefusedAsRepeatingEveryCall(HttpClient::Create({.pipeline = registry.Follow("d")}).status(),
                                    "stages[0] (retry)");
}

// A plain client of the server and the statuses of `n` GETs of /work.
std::string StatusesOf(const testkit::TestServer& srv, int n) {
  httplib::Client cli = srv.Client();
  std::string out;
  for (int i = 0; i < n; ++i) {
    auto res = cli.Get("/work");
    out += (out.empty() ? "" : " ") + (res ? std::to_string(res->status) : "none");
  }
  return out;
}

// A middleware that follows "d" (no stages at first) around a handler that
// answers `status` to GET /work, counting its calls.
struct FollowingServer {
  explicit FollowingServer(int status) {
    Reload(registry, reload_testing::kNoStages);
    mw = MakeMiddleware({.pipeline = registry.Follow("d")});
    srv.server.Get("/work", mw->Wrap([this, status](const httplib::Request&, httplib::Response& res, CallContext&) {
      ++handled;
      res.status = status;
    }));
    srv.Start();
  }
  config::Registry registry;
  std::unique_ptr<Middleware> mw;
  std::atomic<int> handled{0};
  testkit::TestServer srv;  // last: stops before the rest goes
};

TEST(HttpFollowReload, MiddlewareTakesEachReload) {
  FollowingServer s(200);
  EXPECT_EQ(StatusesOf(s.srv, 2), "200 200");
  Reload(s.registry, reload_testing::kOneCallThenShed);
  EXPECT_EQ(StatusesOf(s.srv, 2), "200 429");
  EXPECT_EQ(s.handled.load(), 3);
  EXPECT_EQ(s.mw->stats().shed, 1u);
}

// A server runs each request once: a reload that brings a retry is not run
// around the handler (it would run a failed request again); the request is
// served unguarded and counted.
TEST(HttpFollowReload, MiddlewareServesOnceAndCountsAReloadThatBringsARetry) {
  FollowingServer s(503);
  Reload(s.registry, reload_testing::kThreeAttempts);
  EXPECT_EQ(StatusesOf(s.srv, 1), "503");
  EXPECT_EQ(s.handled.load(), 1);
  EXPECT_EQ(s.mw->stats().misconfigured, 1u);
}

}  // namespace
}  // namespace stormguard::http
