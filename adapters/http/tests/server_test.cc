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

httplib::Client ClientOf(const testing::TestServer& srv) {
  return httplib::Client("127.0.0.1", std::stoi(srv.Url("").substr(17)));
}

std::unique_ptr<IdempotencyStore> MakeStore() {
  auto s = IdempotencyStore::Create({.max_entries = 100, .ttl = 1h});
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

TEST(HttpMiddlewareTest, CountsBudgetsClampedToTheMaximum) {
  testing::TestServer srv;
  auto mw = MakeMiddleware({.limits = {.default_budget = 2s, .max_budget = 5s}});
  srv.server.Get("/work", mw->Wrap([](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  ASSERT_TRUE(cli.Get("/work", With("x-request-timeout-ms", "100")));
  EXPECT_EQ(mw->stats().clamped, 0u);
  ASSERT_TRUE(cli.Get("/work", With("x-request-timeout-ms", "10000")));
  EXPECT_EQ(mw->stats().clamped, 1u);
}

TEST(HttpMiddlewareTest, TheSmallestBudgetAmongAllHeadersWins) {
  testing::TestServer srv;
  auto mw = MakeMiddleware();
  std::mutex mu;
  Duration budget{};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext& ctx) {
    std::lock_guard lock(mu);
    budget = ctx.deadline.Remaining(Clock::Real().Now());
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  ASSERT_TRUE(cli.Get("/work", {{"x-request-timeout-ms", "5000"}, {"grpc-timeout", "300m"}}));
  std::lock_guard lock(mu);
  EXPECT_LE(budget, 300ms);  // grpc-timeout, although it is read last
  EXPECT_GT(budget, 0ms);
}

TEST(HttpMiddlewareTest, AnIdempotencyKeyItCannotHonourIsRefusedWith400) {
  auto store = MakeStore();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get()});
  std::atomic<int> runs{0};
  srv.server.Post("/charge", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    ++runs;
    res.status = 201;
  }));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  // (httplib drops a header with an empty value before it reaches us.)
  for (const std::string& key : {std::string(257, 'k'), std::string("k\xc3\xa9"), std::string("k\x7f")}) {
    auto res = cli.Post("/charge", With("Idempotency-Key", key), "{}", "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << key;
    EXPECT_THAT(res->body, ::testing::HasSubstr("Idempotency-Key: must be 1 to 256"));
  }
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(mw->stats().invalid_keys, 3u);
  // A 256-character key is fine.
  auto res = cli.Post("/charge", With("Idempotency-Key", std::string(256, 'k')), "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201);
}

TEST(HttpMiddlewareTest, AKeyIsScopedByMethodPathAndCaller) {
  auto store = MakeStore();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get(), .caller_identity = [](const httplib::Request& r) {
                              return r.get_header_value("x-caller");
                            }});
  std::atomic<int> runs{0};
  const auto handler = [&](const httplib::Request& req, httplib::Response& res, CallContext&) {
    res.status = 200;
    res.set_content(req.method + " " + req.path + " #" + std::to_string(++runs), "text/plain");
  };
  srv.server.Post("/echo", mw->Wrap(handler));
  srv.server.Get("/echo", mw->Wrap(handler));
  srv.server.Post("/other", mw->Wrap(handler));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  const httplib::Headers alice = {{"Idempotency-Key", "K"}, {"x-caller", "alice"}};
  auto first = cli.Post("/echo", alice, "{}", "application/json");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "POST /echo #1");
  auto get = cli.Get("/echo", alice);
  auto other = cli.Post("/other", alice, "{}", "application/json");
  auto bob = cli.Post("/echo", {{"Idempotency-Key", "K"}, {"x-caller", "bob"}}, "{}", "application/json");
  auto repeat = cli.Post("/echo", alice, "{}", "application/json");
  ASSERT_TRUE(get && other && bob && repeat);
  EXPECT_EQ(get->body, "GET /echo #2");
  EXPECT_EQ(other->body, "POST /other #3");
  EXPECT_EQ(bob->body, "POST /echo #4");
  EXPECT_EQ(repeat->body, "POST /echo #1");  // the same operation: replayed
  EXPECT_EQ(repeat->get_header_value("x-idempotent-replay"), "1");
}

TEST(HttpMiddlewareTest, SafeMethodsAreNeverStored) {
  auto store = MakeStore();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get()});
  std::atomic<int> runs{0};
  srv.server.Get("/stock", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = 200;
    res.set_content(std::to_string(++runs), "text/plain");
  }));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  auto a = cli.Get("/stock", With("Idempotency-Key", "K"));
  auto b = cli.Get("/stock", With("Idempotency-Key", "K"));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(b->body, "2");
  EXPECT_EQ(store->stats().entries, 0u);
}

TEST(HttpMiddlewareTest, AKeyReusedWithAnotherBodyGets422) {
  auto store = MakeStore();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get()});
  std::atomic<int> runs{0};
  srv.server.Post("/charge", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    ++runs;
    res.status = 201;
  }));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  auto first = cli.Post("/charge", With("Idempotency-Key", "K"), R"({"amount": 5})", "application/json");
  auto reused = cli.Post("/charge", With("Idempotency-Key", "K"), R"({"amount": 9})", "application/json");
  ASSERT_TRUE(first && reused);
  EXPECT_EQ(first->status, 201);
  EXPECT_EQ(reused->status, 422);
  EXPECT_THAT(reused->body, ::testing::HasSubstr("another body"));
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(mw->stats().idempotent_mismatches, 1u);
}

TEST(HttpMiddlewareTest, A5xxIsNotStoredSoARetryRunsAgain) {
  auto store = MakeStore();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get()});
  std::atomic<int> runs{0};
  srv.server.Post("/charge", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = ++runs == 1 ? 503 : 201;
  }));
  srv.Start();
  httplib::Client cli = ClientOf(srv);
  auto failed = cli.Post("/charge", With("Idempotency-Key", "K"), "{}", "application/json");
  auto retried = cli.Post("/charge", With("Idempotency-Key", "K"), "{}", "application/json");
  ASSERT_TRUE(failed && retried);
  EXPECT_EQ(failed->status, 503);
  EXPECT_EQ(retried->status, 201);
  EXPECT_EQ(runs.load(), 2);
}

TEST(HttpMiddlewareTest, ARepeatWhileTheFirstStillRunsGets409) {
  std::promise<void> arrived;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto store = MakeStore();
  testing::TestServer srv;
  auto mw = MakeMiddleware({.idempotency = store.get()});
  srv.server.Post("/charge", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    arrived.set_value();
    released.wait_for(10s);  // bounded even if the test fails
    res.status = 201;
  }));
  srv.Start();
  auto first = std::async(std::launch::async, [&] {
    return ClientOf(srv).Post("/charge", With("Idempotency-Key", "K"), "{}", "application/json");
  });
  arrived.get_future().wait();
  // The repeat waits for the first within its own 50 ms budget, then gives up.
  auto repeat = ClientOf(srv).Post("/charge", {{"Idempotency-Key", "K"}, {"x-request-timeout-ms", "50"}},
                                   "{}", "application/json");
  release.set_value();
  ASSERT_TRUE(repeat);
  EXPECT_EQ(repeat->status, 409);
  EXPECT_EQ(mw->stats().idempotent_conflicts, 1u);
  auto done = first.get();
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, 201);
}

}  // namespace
}  // namespace stormguard::http
