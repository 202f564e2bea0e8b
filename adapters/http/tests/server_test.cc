#include "stormguard/http/server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

#include "stormguard/http/client.h"
#include "test_server.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

std::unique_ptr<Middleware> MakeMiddleware(MiddlewareOptions o = {}) {
  auto m = Middleware::Create(std::move(o));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

httplib::Headers With(std::string name, std::string value) { return {{std::move(name), std::move(value)}}; }

TEST(HttpMiddlewareTest, ExpiredRequestNeverReachesTheHandler) {
  testing::TestServer srv;
  auto mw = MakeMiddleware();
  std::atomic<int> handled{0};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    ++handled;
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli("127.0.0.1", std::stoi(srv.Url("").substr(17)));
  auto res = cli.Get("/work", With("x-request-timeout-ms", "0"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 504);
  EXPECT_EQ(res->get_header_value("x-no-retry"), "1");
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(mw->stats().expired_refused, 1u);
}

TEST(HttpMiddlewareTest, HandlerIsCancelledWhenItsDeadlinePasses) {
  testing::TestServer srv;
  auto mw = MakeMiddleware();
  std::atomic<bool> stopped{false};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext& ctx) {
    // Work that nobody waits for any more must stop: wait for the stop (bounded).
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    stopped = cv.wait_for(lock, ctx.stop, 10s, [] { return false; }) || ctx.stop.stop_requested();
    res.status = 504;
  }));
  srv.Start();
  httplib::Client cli("127.0.0.1", std::stoi(srv.Url("").substr(17)));
  const TimePoint start = Clock::Real().Now();
  auto res = cli.Get("/work", With("x-request-timeout-ms", "100"));
  const Duration took = Clock::Real().Now() - start;
  ASSERT_TRUE(res);
  EXPECT_TRUE(stopped.load());
  EXPECT_GE(took, 100ms);
  EXPECT_LT(took, 5s);  // the 100 ms deadline, not the 10 s wait
}

TEST(HttpMiddlewareTest, HostileTimeoutHeadersNeverExtendTheServersMaximum) {
  testing::TestServer srv;
  auto mw = MakeMiddleware({.limits = {.default_budget = 2s, .max_budget = 5s}});
  std::mutex mu;
  std::vector<Duration> budgets;
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext& ctx) {
    std::lock_guard lock(mu);
    budgets.push_back(ctx.deadline.Remaining(Clock::Real().Now()));
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli("127.0.0.1", std::stoi(srv.Url("").substr(17)));
  const std::vector<std::string> hostile = {
      "99999999999999999999999", "9223372036854775807", "-5", "abc", "1e9", " 12 34",
      std::string(10000, '9'), "0x10", "", "\xff\xfe", "12\0"};
  std::size_t reached = 0;
  for (const std::string& v : hostile) {
    auto res = cli.Get("/work", With("x-request-timeout-ms", v));
    ASSERT_TRUE(res) << "server died on '" << v << "'";
    // httplib itself refuses a header line over its 8 KiB limit (400).
    EXPECT_EQ(res->status, v.size() > 8192 ? 400 : 200) << v;
    reached += res->status == 200;
  }
  auto res = cli.Get("/work", With("x-request-deadline", "99999999999999"));
  ASSERT_TRUE(res);
  ASSERT_EQ(budgets.size(), reached + 1);
  for (Duration b : budgets) EXPECT_LE(b, 5s);
}

TEST(HttpMiddlewareTest, HandlersDownstreamCallsInheritDeadlineAndRetryFlag) {
  testing::TestServer back;
  std::mutex mu;
  std::string budget, attempt;
  std::atomic<int> back_calls{0};
  back.server.Get("/c", [&](const httplib::Request& req, httplib::Response& res) {
    ++back_calls;
    std::lock_guard lock(mu);
    budget = req.get_header_value("x-request-timeout-ms");
    attempt = req.get_header_value("x-retry-attempt");
    res.status = 503;
  });
  back.Start();
  testing::TestServer front;
  auto mw = MakeMiddleware();
  auto client = HttpClient::Create({.retry = {.max_attempts = 3}}).value();
  front.server.Get("/b", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    HttpResult r = client.Send({.url = back.Url("/c")});  // no context passed by hand
    res.status = r.ok() ? 200 : 502;
  }));
  front.Start();
  httplib::Client cli("127.0.0.1", std::stoi(front.Url("").substr(17)));
  auto res = cli.Get("/b", {{"x-request-timeout-ms", "800"}, {"x-retry-attempt", "2"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 502);
  EXPECT_EQ(back_calls.load(), 1);  // serving a retry: no retries below (the retry flag)
  ASSERT_FALSE(budget.empty());
  EXPECT_LE(std::stoi(budget), 720);  // 800 ms minus this hop's 10% reserve
  EXPECT_GT(std::stoi(budget), 500);
}

TEST(HttpMiddlewareTest, AnswersNoRetryWhenADownstreamCallGaveUpAfterRetrying) {
  testing::TestServer back;
  std::atomic<int> back_calls{0};
  back.server.Get("/c", [&](const httplib::Request&, httplib::Response& res) {
    ++back_calls;
    res.status = 503;
  });
  back.Start();
  testing::TestServer front;
  auto mw = MakeMiddleware();
  auto client = HttpClient::Create({.retry = {.max_attempts = 3, .backoff = {.base = 1ms, .cap = 2ms}}}).value();
  front.server.Get("/b", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = client.Send({.url = back.Url("/c")}).ok() ? 200 : 503;
  }));
  front.Start();
  httplib::Client cli("127.0.0.1", std::stoi(front.Url("").substr(17)));
  auto res = cli.Get("/b");
  ASSERT_TRUE(res);
  EXPECT_EQ(back_calls.load(), 3);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(res->get_header_value("x-no-retry"), "1");
}

TEST(HttpMiddlewareTest, SheddingAnswersNoRetryOrRetryAfter) {
  testing::TestServer srv;
  std::atomic<bool> pause{false};
  auto mw = MakeMiddleware({.admission = [&](const CallContext&) {
    Status s = pause ? Status::ResourceExhausted("rate limited") : Status::Unavailable("bulkhead full");
    if (pause) s.mutable_hints().pushback = 3s;
    return AdmissionTicket{std::move(s), nullptr};
  }});
  srv.server.Get("/work", mw->Wrap([](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli("127.0.0.1", std::stoi(srv.Url("").substr(17)));
  auto shed = cli.Get("/work");
  ASSERT_TRUE(shed);
  EXPECT_EQ(shed->status, 503);
  EXPECT_EQ(shed->get_header_value("x-no-retry"), "1");
  pause = true;
  auto limited = cli.Get("/work");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(limited->get_header_value("Retry-After"), "3");
}

TEST(HttpMiddlewareTest, PostRetriedAfterALostResponseTakesEffectOnce) {
  auto store = IdempotencyStore::Create({.max_entries = 100, .ttl = 1h}).value();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get()});
  std::atomic<int> charges{0};
  srv.server.Post("/charge", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    const int n = ++charges;
    // The first charge's answer is "lost": it arrives after the caller's
    // attempt timeout, so the caller retries with the same key.
    if (n == 1) std::this_thread::sleep_for(400ms);
    res.status = 201;
    res.set_content("charged", "text/plain");
  }));
  srv.Start();
  auto client = HttpClient::Create({.retry = {.max_attempts = 6,
                                              .backoff = {.base = 1ms, .cap = 2ms},
                                              .per_attempt_timeout = 150ms}})
                    .value();
  HttpResult r = client.Send({.method = "POST", .url = srv.Url("/charge"), .body = "{}",
                              .idempotency_key = "charge-42"});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_GE(r.run.attempts, 2);
  EXPECT_EQ(charges.load(), 1);
  EXPECT_EQ(r.response->body, "charged");
  // And a late repeat gets the stored answer without running again.
  HttpResult again = client.Send({.method = "POST", .url = srv.Url("/charge"), .body = "{}",
                                  .idempotency_key = "charge-42"});
  EXPECT_TRUE(again.ok());
  EXPECT_EQ(charges.load(), 1);
}

}  // namespace
}  // namespace stormguard::http
