// The middleware with an idempotency store: a keyed request runs at most
// once per (caller, method, path, key); invalid keys, reused keys and
// repeats of a running request get clear answers instead of a second run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "client_test_util.h"
#include "middleware_test_util.h"
#include "stormguard/http/client.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::MakeMiddleware;
using testkit::With;

// A server whose middleware keeps an idempotency store; `runs` counts how
// often a handler really ran.
struct KeyedServer {
  explicit KeyedServer(MiddlewareOptions o = {}) {
    o.idempotency = store.get();
    mw = MakeMiddleware(std::move(o));
  }
  // POST `path`: counts the run and answers 201.
  void PostCounting(const std::string& path) {
    srv.server.Post(path, mw->Wrap([this](const httplib::Request&, httplib::Response& res, CallContext&) {
      ++runs;
      res.status = 201;
    }));
  }
  httplib::Client Start() {
    srv.Start();
    return srv.Client();
  }

  std::unique_ptr<IdempotencyStore> store = IdempotencyStore::Create({.max_entries = 100, .ttl = 1h}).value();
  std::unique_ptr<Middleware> mw;
  testkit::TestServer srv;
  std::atomic<int> runs{0};
};

TEST(IdempotentMiddlewareTest, AnIdempotencyKeyItCannotHonourIsRefusedWith400) {
  KeyedServer k;
  k.PostCounting("/charge");
  httplib::Client cli = k.Start();
  // (httplib drops a header with an empty value before it reaches us.)
  for (const std::string& key : {std::string(257, 'k'), std::string("k\xc3\xa9"), std::string("k\x7f")}) {
    auto res = cli.Post("/charge", With("Idempotency-Key", key), "{}", "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << key;
    EXPECT_THAT(res->body, HasSubstr("Idempotency-Key: must be 1 to 256"));
  }
  EXPECT_EQ(k.runs.load(), 0);
  EXPECT_EQ(k.mw->stats().invalid_keys, 3u);
  // A 256-character key is fine.
  auto res = cli.Post("/charge", With("Idempotency-Key", std::string(256, 'k')), "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201);
}

// Two Idempotency-Key headers name no one operation; a bad key is refused
// without a store too, where the handler may deduplicate by the key itself.
TEST(IdempotentMiddlewareTest, AKeySentTwiceOrUnreadableIsRefusedWithOrWithoutAStore) {
  for (const bool with_store : {true, false}) {
    SCOPED_TRACE(with_store ? "with a store" : "without a store");
    KeyedServer k;
    if (!with_store) k.mw = MakeMiddleware({});
    k.PostCounting("/charge");
    httplib::Client cli = k.Start();
    const httplib::Headers twice{{"Idempotency-Key", "k1"}, {"idempotency-key", "k2"}};
    const httplib::Headers same{{"Idempotency-Key", "k1"}, {"Idempotency-Key", "k1"}};
    for (const httplib::Headers& h : {twice, same, With("Idempotency-Key", std::string(257, 'k'))}) {
      for (int i = 0; i < 2; ++i) {
        auto res = cli.Post("/charge", h, "{}", "application/json");
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 400);
        EXPECT_THAT(res->body, HasSubstr("sent once"));
      }
    }
    EXPECT_EQ(k.runs.load(), 0);
    EXPECT_EQ(k.mw->stats().invalid_keys, 6u);
  }
}

TEST(IdempotentMiddlewareTest, AKeyIsScopedByMethodPathAndCaller) {
  KeyedServer k({.caller_identity = [](const httplib::Request& r) { return r.get_header_value("x-caller"); }});
  const auto handler = [&](const httplib::Request& req, httplib::Response& res, CallContext&) {
    res.status = 200;
    res.set_content(req.method + " " + req.path + " #" + std::to_string(++k.runs), "text/plain");
  };
  k.srv.server.Post("/echo", k.mw->Wrap(handler));
  k.srv.server.Get("/echo", k.mw->Wrap(handler));
  k.srv.server.Post("/other", k.mw->Wrap(handler));
  httplib::Client cli = k.Start();
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

TEST(IdempotentMiddlewareTest, SafeMethodsAreNeverStored) {
  KeyedServer k;
  k.srv.server.Get("/stock", k.mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = 200;
    res.set_content(std::to_string(++k.runs), "text/plain");
  }));
  httplib::Client cli = k.Start();
  auto a = cli.Get("/stock", With("Idempotency-Key", "K"));
  auto b = cli.Get("/stock", With("Idempotency-Key", "K"));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(b->body, "2");
  EXPECT_EQ(k.store->stats().entries, 0u);
}

TEST(IdempotentMiddlewareTest, AKeyReusedWithAnotherBodyGets422) {
  KeyedServer k;
  k.PostCounting("/charge");
  httplib::Client cli = k.Start();
  auto first = cli.Post("/charge", With("Idempotency-Key", "K"), R"({"amount": 5})", "application/json");
  auto reused = cli.Post("/charge", With("Idempotency-Key", "K"), R"({"amount": 9})", "application/json");
  ASSERT_TRUE(first && reused);
  EXPECT_EQ(first->status, 201);
  EXPECT_EQ(reused->status, 422);
  EXPECT_THAT(reused->body, HasSubstr("another body"));
  EXPECT_EQ(k.runs.load(), 1);
  EXPECT_EQ(k.mw->stats().idempotent_mismatches, 1u);
}

TEST(IdempotentMiddlewareTest, A5xxIsNotStoredSoARetryRunsAgain) {
  KeyedServer k;
  k.srv.server.Post("/charge", k.mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    res.status = ++k.runs == 1 ? 503 : 201;
  }));
  httplib::Client cli = k.Start();
  auto failed = cli.Post("/charge", With("Idempotency-Key", "K"), "{}", "application/json");
  auto retried = cli.Post("/charge", With("Idempotency-Key", "K"), "{}", "application/json");
  ASSERT_TRUE(failed && retried);
  EXPECT_EQ(failed->status, 503);
  EXPECT_EQ(retried->status, 201);
  EXPECT_EQ(k.runs.load(), 2);
}

TEST(IdempotentMiddlewareTest, ARepeatWhileTheFirstStillRunsGets409) {
  std::promise<void> arrived;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  KeyedServer k;
  k.srv.server.Post("/charge", k.mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    arrived.set_value();
    released.wait_for(10s);  // bounded even if the test fails
    res.status = 201;
  }));
  k.Start();
  auto first = std::async(std::launch::async, [&] {
    return k.srv.Client().Post("/charge", With("Idempotency-Key", "K"), "{}", "application/json");
  });
  arrived.get_future().wait();
  // The repeat waits for the first within its own 50 ms budget, then gives up.
  auto repeat = k.srv.Client().Post("/charge", {{"Idempotency-Key", "K"}, {"x-request-timeout-ms", "50"}}, "{}",
                                    "application/json");
  release.set_value();
  ASSERT_TRUE(repeat);
  EXPECT_EQ(repeat->status, 409);
  EXPECT_EQ(k.mw->stats().idempotent_conflicts, 1u);
  auto done = first.get();
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, 201);
}

TEST(IdempotentMiddlewareTest, PostRetriedAfterALostResponseTakesEffectOnce) {
  KeyedServer k;
  k.srv.server.Post("/charge", k.mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    // The first charge's answer is "lost": it arrives after the caller's
    // attempt timeout, so the caller retries with the same key.
    if (++k.runs == 1) std::this_thread::sleep_for(400ms);
    res.status = 201;
    res.set_content("charged", "text/plain");
  }));
  k.Start();
  auto client = HttpClient::Create({.pipeline = testkit::RetryPipeline({.max_attempts = 6,
                                                                        .backoff = {.base = 1ms, .cap = 2ms},
                                                                        .per_attempt_timeout = 150ms})})
                    .value();
  const HttpRequest charge{.method = "POST", .url = k.srv.Url("/charge"), .body = "{}", .idempotency_key = "charge-42"};
  HttpResult r = client.Send(charge);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_GE(r.attempts, 2);
  EXPECT_EQ(k.runs.load(), 1);
  EXPECT_EQ(r.response->body, "charged");
  // And a late repeat gets the stored answer without running again.
  HttpResult again = client.Send(charge);
  EXPECT_TRUE(again.ok());
  EXPECT_EQ(k.runs.load(), 1);
}

}  // namespace
}  // namespace stormguard::http
