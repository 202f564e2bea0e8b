#include "stormguard/asio/async_curl_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "async_test_util.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using testkit::RunBounded;
using testkit::TestServer;
using Clk = std::chrono::steady_clock;

std::unique_ptr<AsyncCurlClient> MakeClient(asio::io_context& io, AsyncCurlClientOptions o = {}) {
  auto c = AsyncCurlClient::Create(io, std::move(o));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

CallContext WithBudget(Duration budget) {
  return CallContext{.deadline = Deadline::After(Clock::Real().Now(), budget)};
}

// The test coroutines hand their result back through `out`, empty until
// the exchange completed.
using Out = std::optional<HttpResult>;
asio::awaitable<void> SendInto(Out& out, AsyncCurlClient& c, CallContext ctx, HttpRequest req) {
  out = co_await c.Send(std::move(ctx), std::move(req));
}

// One exchange, run to completion on `io`.
Out SendOnce(asio::io_context& io, AsyncCurlClient& c, CallContext ctx, HttpRequest req) {
  Out out;
  RunBounded(io, SendInto(out, c, std::move(ctx), std::move(req)));
  return out;
}

TEST(AsyncCurlClientTest, GetCarriesTheChainHeaders) {
  TestServer srv;
  std::string budget, attempt;
  srv.server.Get("/stock", [&](const httplib::Request& req, httplib::Response& res) {
    budget = req.get_header_value("x-request-timeout-ms");
    attempt = req.get_header_value("x-retry-attempt");
    res.set_content("ok", "text/plain");
  });
  srv.Start();
  asio::io_context io;
  auto client = MakeClient(io);
  CallContext ctx = WithBudget(800ms);
  ctx.attempt = 2;
  auto r = SendOnce(io, *client, ctx, {.url = srv.Url("/stock")});
  ASSERT_TRUE(r && r->ok()) << (r ? r->status.ToString() : "no result");
  EXPECT_EQ(r->response->status, 200);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->response->body, "ok");
  EXPECT_EQ(r->response->Header("content-type"), "text/plain");
  EXPECT_EQ(attempt, "2");
  ASSERT_FALSE(budget.empty());
  EXPECT_LE(std::stoi(budget), 800);
  EXPECT_GE(std::stoi(budget), 500);
}

TEST(AsyncCurlClientTest, PostSendsItsBodyAndKey) {
  TestServer srv;
  std::string body, key;
  srv.server.Post("/charge", [&](const httplib::Request& req, httplib::Response& res) {
    body = req.body;
    key = req.get_header_value("Idempotency-Key");
    res.status = 201;
  });
  srv.Start();
  asio::io_context io;
  auto client = MakeClient(io);
  HttpRequest req{
      .method = "POST", .url = srv.Url("/charge"), .body = R"({"amount": 5})", .idempotency_key = "order-7"};
  auto r = SendOnce(io, *client, WithBudget(1s), req);
  ASSERT_TRUE(r && r->ok()) << (r ? r->status.ToString() : "no result");
  EXPECT_EQ(r->response->status, 201);
  EXPECT_EQ(body, R"({"amount": 5})");
  EXPECT_EQ(key, "order-7");
}

TEST(AsyncCurlClientTest, RefusesAnUnsendableKeyBeforeSending) {
  TestServer srv;
  std::atomic<int> calls{0};
  srv.server.Post("/charge", [&](const httplib::Request&, httplib::Response&) { ++calls; });
  srv.Start();
  asio::io_context io;
  auto client = MakeClient(io);
  HttpRequest req{.method = "POST", .url = srv.Url("/charge"), .idempotency_key = "bad\nkey"};
  auto r = SendOnce(io, *client, WithBudget(1s), req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r->attempts, 0);  // refused before sending
  EXPECT_NE(r->status.message().find("idempotency_key"), std::string::npos);
  EXPECT_EQ(calls.load(), 0);
}

TEST(AsyncCurlClientTest, EndsAtTheDeadlineAndTheServerSeesTheConnectionGo) {
  TestServer srv;
  std::promise<Clk::time_point> gone;
  srv.server.Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
    // A trickle that never ends on its own (3 s at most): the client must cut it.
    const auto until = Clk::now() + 3s;
    res.set_chunked_content_provider("text/plain", [&, until](std::size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(10ms);  // the server's pace, not the client's logic
      if (Clk::now() > until) {
        sink.done();
        return true;
      }
      if (!sink.write(".", 1)) {
        gone.set_value(Clk::now());
        return false;
      }
      return true;
    });
  });
  srv.Start();
  asio::io_context io;
  auto client = MakeClient(io);
  const auto start = Clk::now();
  auto r = SendOnce(io, *client, WithBudget(200ms), {.url = srv.Url("/slow")});
  const auto took = Clk::now() - start;
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code(), StatusCode::kDeadlineExceeded) << r->status.ToString();
  EXPECT_GE(took, 200ms);
  EXPECT_LE(took, 200ms + 150ms);
  auto seen = gone.get_future();
  ASSERT_EQ(seen.wait_for(2s), std::future_status::ready) << "the server never saw the connection go";
  EXPECT_LE(seen.get() - start, 200ms + 500ms);
  EXPECT_EQ(client->in_flight(), 0u);
}

TEST(AsyncCurlClientTest, TerminalCancellationDropsTheTransferAtOnce) {
  TestServer srv;
  asio::io_context io;
  asio::cancellation_signal cancel;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  // `released` by value: the handler may still be returning from its wait
  // when the test's locals go, before `srv` (declared first) joins it.
  srv.server.Get("/hang", [&io, &cancel, released](const httplib::Request&, httplib::Response& res) {
    // The request is being served: cancel it from the client's own thread.
    asio::post(io, [&] { cancel.emit(asio::cancellation_type::terminal); });
    released.wait_for(5s);
    res.set_content("late", "text/plain");
  });
  srv.Start();
  auto client = MakeClient(io);
  Out out;
  std::size_t in_flight_after = 99;
  asio::co_spawn(io, SendInto(out, *client, WithBudget(5s), {.url = srv.Url("/hang")}),
                 asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e) {
                   if (e) std::rethrow_exception(e);
                   in_flight_after = client->in_flight();
                 }));
  const auto start = Clk::now();
  io.run_for(4s);
  const auto took = Clk::now() - start;
  release.set_value();
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status.code(), StatusCode::kCancelled) << out->status.ToString();
  EXPECT_LT(took, 2s);  // not the server's 5 s
  EXPECT_EQ(in_flight_after, 0u);
  // No socket wait or curl timer left behind: the io_context ran out of work.
  EXPECT_TRUE(io.stopped());
}

TEST(AsyncCurlClientTest, AThousandConcurrentExchangesOnOneThread) {
  TestServer srv;
  srv.server.Get("/n", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  testkit::StartWithWideBacklog(srv);
  asio::io_context io;
  // The whole budget to connect: under TSan beside another test, the one
  // thread took over 5 s to see a thousand connects complete.
  auto client = MakeClient(io, {.connect_timeout = 30s});
  constexpr int kCalls = 1000;
  std::vector<Out> outs(kCalls);
  std::size_t peak = 0;
  for (Out& out : outs) {
    asio::co_spawn(io, SendInto(out, *client, WithBudget(30s), {.url = srv.Url("/n")}), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
  }
  asio::post(io, [&] { peak = client->in_flight(); });  // after every Send has started
  const auto start = Clk::now();
  io.run_for(60s);
  std::printf(
      "%d exchanges on one thread in %lld ms\n", kCalls,
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clk::now() - start).count()));
  int ok = 0;
  for (const Out& out : outs) {
    ASSERT_TRUE(out) << "an exchange never completed";
    if (out->ok() && out->response->body == "ok") ++ok;
    else ADD_FAILURE() << out->status.ToString();
  }
  EXPECT_EQ(ok, kCalls);
  EXPECT_EQ(peak, static_cast<std::size_t>(kCalls));  // all in flight at once
  EXPECT_EQ(client->in_flight(), 0u);
}

TEST(AsyncCurlClientTest, AnAnswerOverTheBoundIsAnErrorNamingIt) {
  TestServer srv;
  srv.server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(10000, 'x'), "text/plain");
  });
  srv.Start();
  asio::io_context io;
  auto client = MakeClient(io, {.max_response_bytes = 1024});
  auto r = SendOnce(io, *client, WithBudget(1s), {.url = srv.Url("/big")});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r->status.message().find("max_response_bytes (1024 bytes)"), std::string::npos) << r->status.ToString();
}

// A loopback port nothing listens on: bound, then closed.
int FreePort() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

TEST(AsyncCurlClientTest, AnUnreachablePortIsUnavailable) {
  asio::io_context io;
  auto client = MakeClient(io);
  const std::string url = "http://127.0.0.1:" + std::to_string(FreePort()) + "/";
  auto r = SendOnce(io, *client, WithBudget(1s), {.url = url});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code(), StatusCode::kUnavailable) << r->status.ToString();
}

TEST(AsyncCurlClientTest, AnExpiredDeadlineSendsNothing) {
  asio::io_context io;
  auto client = MakeClient(io);
  CallContext ctx{.deadline = Deadline::At(Clock::Real().Now() - 1ms)};
  auto r = SendOnce(io, *client, ctx, {.url = "http://127.0.0.1:1/"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code(), StatusCode::kDeadlineExceeded);
}

TEST(AsyncCurlClientTest, InvalidOptionsNameTheField) {
  asio::io_context io;
  auto c = AsyncCurlClient::Create(io, {.connect_timeout = 0ms, .max_response_bytes = 0});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("connect_timeout"), std::string::npos);
  EXPECT_NE(c.status().message().find("max_response_bytes"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::http
