// The blocking HttpClient and the AsyncCurlClient answer in one shape
// (HttpResult) and map one answer to one Status: the same table of answers
// goes through both, and each row must come back alike from each.
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <optional>
#include <string>
#include <vector>

#include "async_test_util.h"
#include "stormguard/asio/async_curl_client.h"
#include "stormguard/http/client.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using testkit::RunBounded;
using testkit::TestServer;

struct Row {
  std::string name;
  HttpRequest request;  // its url is a path of the test server
  // What both clients must answer.
  StatusCode code;
  OutcomeClass outcome;
  bool do_not_retry = false;
  std::optional<Duration> pushback{};
};

// The answers, by path: status and headers only.
void Serve(httplib::Server& s) {
  s.Get("/ok", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  auto busy = [](const httplib::Request&, httplib::Response& res) { res.status = 503; };
  s.Get("/busy", busy);
  s.Post("/busy", busy);
  s.Get("/slow-down", [](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "2");
  });
  s.Get("/gave-up", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_header("x-no-retry", "1");
  });
  s.Post("/in-progress", [](const httplib::Request&, httplib::Response& res) { res.status = 409; });
}

std::vector<Row> Rows() {
  return {
      {"200", {.url = "/ok"}, StatusCode::kOk, OutcomeClass::kSuccess},
      {"503", {.url = "/busy"}, StatusCode::kUnavailable, OutcomeClass::kOverloaded},
      {"429 with Retry-After",
       {.url = "/slow-down"},
       StatusCode::kResourceExhausted,
       OutcomeClass::kOverloaded,
       false,
       2s},
      {"503 with x-no-retry", {.url = "/gave-up"}, StatusCode::kUnavailable, OutcomeClass::kOverloaded, true},
      // It may have acted, and may not run twice: nothing repeats it.
      {"503 to a POST without a key",
       {.method = "POST", .url = "/busy"},
       StatusCode::kUnavailable,
       OutcomeClass::kAmbiguous},
      // The first request with that key still runs: come back later.
      {"409 to a keyed POST",
       {.method = "POST", .url = "/in-progress", .idempotency_key = "order-7"},
       StatusCode::kAborted,
       OutcomeClass::kTransient},
  };
}

asio::awaitable<void> SendInto(std::optional<HttpResult>& out, AsyncCurlClient& c, CallContext ctx, HttpRequest req) {
  out = co_await c.Send(std::move(ctx), std::move(req));
}

void ExpectRow(const Row& row, const HttpResult& r, const char* client) {
  SCOPED_TRACE(std::string(client) + ", " + row.name + ": " + r.status.ToString());
  EXPECT_EQ(r.status.code(), row.code);
  if (!r.ok()) {
    EXPECT_EQ(r.status.hints().outcome, row.outcome);
    EXPECT_EQ(r.status.hints().do_not_retry, row.do_not_retry);
    EXPECT_EQ(r.status.hints().pushback, row.pushback);
  }
  ASSERT_TRUE(r.response.has_value());
  EXPECT_EQ(r.attempts, 1);
}

TEST(SameAnswerMappingTest, BothClientsMapEveryAnswerAlike) {
  TestServer srv;
  Serve(srv.server);
  srv.Start();
  const HttpClient blocking = HttpClient::Create({.pipeline = PipelineBuilder().Build().value()}).value();
  asio::io_context io;
  std::unique_ptr<AsyncCurlClient> async = AsyncCurlClient::Create(io, {}).value();
  for (Row& row : Rows()) {
    row.request.url = srv.Url(row.request.url);
    const HttpResult sync = blocking.Send(row.request);
    ExpectRow(row, sync, "HttpClient");
    std::optional<HttpResult> got;
    // Named, not a braced temporary: GCC 12 mishandles those as coroutine arguments.
    const CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 2s)};
    io.restart();  // the previous row's run stopped it
    RunBounded(io, SendInto(got, *async, ctx, row.request));
    ASSERT_TRUE(got.has_value()) << row.name << ": the exchange never completed";
    ExpectRow(row, *got, "AsyncCurlClient");
    EXPECT_EQ(got->status, sync.status) << row.name;
    EXPECT_EQ(got->response->status, sync.response->status) << row.name;
  }
}

}  // namespace
}  // namespace stormguard::http
