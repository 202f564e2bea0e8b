#include "stormguard/http/server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

#include "client_test_util.h"
#include "middleware_test_util.h"
#include "stormguard/http/client.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using testkit::MakeMiddleware;
using testkit::With;

TEST(HttpMiddlewareTest, ExpiredRequestNeverReachesTheHandler) {
  testkit::TestServer srv;
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
  testkit::TestServer srv;
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

// The deadline's cancel is a timer on the injected TimerService: with one on
// a ManualClock, the handler is stopped when the test moves past its
// deadline and fires what is due, not before.
TEST(HttpMiddlewareTest, DeadlineCancelIsATimerOnTheInjectedTimerService) {
  ManualClock clock;
  auto timers = TimerService::Create(clock, {.background_thread = false}).value();
  testkit::TestServer srv;
  auto mw = MakeMiddleware({.clock = &clock, .timers = timers.get()});
  std::promise<void> entered;
  std::atomic<std::size_t> armed_in_handler{0};
  std::atomic<bool> stopped{false};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext& ctx) {
    armed_in_handler = timers->armed();
    entered.set_value();
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    stopped = cv.wait_for(lock, ctx.stop, 10s, [] { return false; }) || ctx.stop.stop_requested();
    res.status = 504;
  }));
  srv.Start();
  auto call = std::async(std::launch::async, [&] {
    httplib::Client cli("127.0.0.1", std::stoi(srv.Url("").substr(17)));
    return cli.Get("/work", With("x-request-timeout-ms", "100"));
  });
  ASSERT_EQ(entered.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(armed_in_handler.load(), 1u);
  clock.Advance(100ms - 1ns);
  EXPECT_EQ(timers->RunDue(), 0u);
  clock.Advance(1ns);
  EXPECT_EQ(timers->RunDue(), 1u);
  ASSERT_EQ(call.wait_for(10s), std::future_status::ready);
  auto res = call.get();
  ASSERT_TRUE(res);
  EXPECT_TRUE(stopped.load());
  EXPECT_EQ(timers->armed(), 0u);
}

TEST(HttpMiddlewareTest, HostileTimeoutHeadersNeverExtendTheServersMaximum) {
  testkit::TestServer srv;
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
  const std::vector<std::string> hostile = {"99999999999999999999999",
                                            "9223372036854775807",
                                            "-5",
                                            "abc",
                                            "1e9",
                                            " 12 34",
                                            std::string(10000, '9'),
                                            "0x10",
                                            "",
                                            "\xff\xfe",
                                            "12\0"};
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
  testkit::TestServer back;
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
  testkit::TestServer front;
  auto mw = MakeMiddleware();
  auto client = HttpClient::Create({.pipeline = testkit::RetryPipeline({.max_attempts = 3})}).value();
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
  testkit::TestServer back;
  std::atomic<int> back_calls{0};
  back.server.Get("/c", [&](const httplib::Request&, httplib::Response& res) {
    ++back_calls;
    res.status = 503;
  });
  back.Start();
  testkit::TestServer front;
  auto mw = MakeMiddleware();
  auto client =
      HttpClient::Create({.pipeline =
                              testkit::RetryPipeline({.max_attempts = 3, .backoff = {.base = 1ms, .cap = 2ms}})})
          .value();
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

TEST(HttpMiddlewareTest, ThePipelinesGuardsShedWithNoRetryOrRetryAfter) {
  testkit::TestServer srv;
  auto breaker = CircuitBreaker::Create({});
  ASSERT_TRUE(breaker.ok());
  // One request per 1000 s: the second is refused with a pause.
  auto pipeline = testkit::Built(
      PipelineBuilder().AddCircuitBreaker(*breaker).AddRateLimiter({.rate = 0.001, .burst = 1, .stripes = 1}));
  auto mw = MakeMiddleware({.pipeline = pipeline});
  std::atomic<int> runs{0};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    ++runs;
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli = srv.Client();
  auto served = cli.Get("/work");
  ASSERT_TRUE(served);
  EXPECT_EQ(served->status, 200);
  auto limited = cli.Get("/work");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  ASSERT_TRUE(limited->has_header("Retry-After"));
  EXPECT_GE(std::stoi(limited->get_header_value("Retry-After")), 900);
  EXPECT_EQ(limited->get_header_value("x-no-retry"), "");
  ASSERT_TRUE((*breaker)->TransitionToForcedOpen(Clock::Real().Now()).ok());
  auto shed = cli.Get("/work");
  ASSERT_TRUE(shed);
  EXPECT_EQ(shed->status, 503);
  EXPECT_EQ(shed->get_header_value("x-no-retry"), "1");
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(mw->stats().shed, 2u);
  EXPECT_EQ(mw->stats().marked_no_retry, 1u);  // the 429 asks for a pause, not for no retry
}

TEST(HttpMiddlewareTest, ServedFailuresCountForThePipelinesGuards) {
  testkit::TestServer srv;
  auto breaker =
      CircuitBreaker::Create({.window_size = 2, .minimum_number_of_calls = 2, .wait_in_open = std::chrono::hours(1)});
  ASSERT_TRUE(breaker.ok());
  auto mw = MakeMiddleware({.pipeline = testkit::Built(PipelineBuilder().AddCircuitBreaker(*breaker))});
  std::atomic<int> runs{0};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    ++runs;
    res.status = 503;
  }));
  srv.Start();
  httplib::Client cli = srv.Client();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(cli.Get("/work"));
  EXPECT_EQ(runs.load(), 2);  // two 503s opened the breaker; the third was shed
  EXPECT_EQ(mw->stats().shed, 1u);
}

TEST(HttpMiddlewareTest, AServerPipelineThatWouldRunARequestTwiceIsRefused) {
  auto m = Middleware::Create({.pipeline = testkit::Built(PipelineBuilder().AddTimeout(1s).AddRetry({}))});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(),
              ::testing::HasSubstr("pipeline.stages[1] (retry): a server runs each request once"));
}

TEST(HttpMiddlewareTest, CountsBudgetsClampedToTheMaximum) {
  testkit::TestServer srv;
  auto mw = MakeMiddleware({.limits = {.default_budget = 2s, .max_budget = 5s}});
  srv.server.Get("/work",
                 mw->Wrap([](const httplib::Request&, httplib::Response& res, CallContext&) { res.status = 200; }));
  srv.Start();
  httplib::Client cli = srv.Client();
  ASSERT_TRUE(cli.Get("/work", With("x-request-timeout-ms", "100")));
  EXPECT_EQ(mw->stats().clamped, 0u);
  ASSERT_TRUE(cli.Get("/work", With("x-request-timeout-ms", "10000")));
  EXPECT_EQ(mw->stats().clamped, 1u);
}

TEST(HttpMiddlewareTest, TheSmallestBudgetAmongAllHeadersWins) {
  testkit::TestServer srv;
  auto mw = MakeMiddleware();
  std::mutex mu;
  Duration budget{};
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext& ctx) {
    std::lock_guard lock(mu);
    budget = ctx.deadline.Remaining(Clock::Real().Now());
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli = srv.Client();
  ASSERT_TRUE(cli.Get("/work", {{"x-request-timeout-ms", "5000"}, {"grpc-timeout", "300m"}}));
  std::lock_guard lock(mu);
  EXPECT_LE(budget, 300ms);  // grpc-timeout, although it is read last
  EXPECT_GT(budget, 0ms);
}

}  // namespace
}  // namespace stormguard::http
