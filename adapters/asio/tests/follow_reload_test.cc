// AsyncCurlClient wrapped by a live handle (registry.Follow) under both
// asynchronous drivers, against a real loopback server: the coroutine driver
// (co_await live.Execute) and the completion driver (live.ExecuteAsync).
// Each call runs on the configuration in force when it starts; a reload
// that lands while a call is in flight changes only the calls after it.
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "async_test_util.h"
#include "follow_testing.h"
#include "stormguard/asio/asio_timers.h"
#include "stormguard/asio/async_curl_client.h"
#include "stormguard/asio/coroutine_driver.h"
#include "stormguard/config/registry.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using reload_testing::Reload;

// Answers 503 to every GET; the first one reloads `registry` to three
// attempts while its call is in flight (before it answers).
struct ReloadingServer {
  explicit ReloadingServer(config::Registry& registry) {
    Reload(registry, reload_testing::kOneAttempt);
    srv.server.Get("/stock", [this, &registry](const httplib::Request&, httplib::Response& res) {
      if (arrivals.fetch_add(1) == 0) Reload(registry, reload_testing::kThreeAttempts);
      res.status = 503;
    });
    srv.Start();
  }
  std::atomic<int> arrivals{0};
  testkit::TestServer srv;  // last: stops before the counter goes
};

std::unique_ptr<AsyncCurlClient> MakeClient(asio::io_context& io) {
  auto c = AsyncCurlClient::Create(io, {});
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

// A live handle on "d", the server that reloads it, and a client on `io`.
class AsioFollowReload : public ::testing::Test {
 protected:
  config::Registry registry;
  ReloadingServer server{registry};
  asio::io_context io;
  std::unique_ptr<AsyncCurlClient> client = MakeClient(io);
  const PipelineRef live = registry.Follow("d");
  const std::string url = server.srv.Url("/stock");
};

// A GET may run twice with the effect of once: the call says so.
CallContext IdempotentCall() { return {.deadline = Deadline::After(Clock::Real().Now(), 5s), .idempotent = true}; }

// One exchange, with the answer's status as the attempt's outcome.
asio::awaitable<Result<HttpResponse>> Exchange(AsyncCurlClient& client, CallContext attempt, std::string url) {
  // Named, not a braced temporary: GCC 12 mishandles those as coroutine arguments.
  HttpRequest request{.url = std::move(url)};
  HttpResult r = co_await client.Send(std::move(attempt), std::move(request));
  if (!r.ok()) co_return r.status;
  co_return std::move(*r.response);
}

// The same, reported to the completion driver's handle.
asio::awaitable<void> ExchangeInto(AsyncCurlClient& client, CallContext attempt, std::string url,
                                   Completion<Result<HttpResponse>> done) {
  done(co_await Exchange(client, std::move(attempt), std::move(url)));
}

// One call through `pipeline` under the coroutine driver; its attempts.
asio::awaitable<void> CoroutineCall(const PipelineRef& pipeline, AsyncCurlClient& client, std::string url,
                                    int& attempts) {
  CallContext ctx = IdempotentCall();
  Result<HttpResponse> r = co_await pipeline.Execute(ctx, [&](CallContext& c) {
    ++attempts;
    return Exchange(client, c, url);
  });
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST_F(AsioFollowReload, CoroutineDriverTakesEachReload) {
  ASSERT_NE(client, nullptr);
  int first = 0, second = 0;
  testkit::RunBounded(io, CoroutineCall(live, *client, url, first));
  io.restart();
  testkit::RunBounded(io, CoroutineCall(live, *client, url, second));
  EXPECT_EQ(first, 1);  // started on one attempt; the reload landed during it
  EXPECT_EQ(second, 3);
  EXPECT_EQ(server.arrivals.load(), 4);
}

// One call through `pipeline` under the completion driver: each attempt is
// an exchange spawned on `io`, and the pipeline waits on io's timers.
int CompletionCall(asio::io_context& io, const PipelineRef& pipeline, AsyncCurlClient& client, const std::string& url) {
  CallContext ctx = IdempotentCall();
  int attempts = 0;
  std::optional<Status> outcome;
  pipeline.ExecuteAsync<Result<HttpResponse>>(
      TimersFor(io.get_executor()), ctx,
      [&](CallContext& c, Completion<Result<HttpResponse>> done) {
        ++attempts;
        asio::co_spawn(io, ExchangeInto(client, c, url, std::move(done)), [](std::exception_ptr e) {
          if (e) std::rethrow_exception(e);
        });
      },
      [&](Result<HttpResponse> r) { outcome = r.status(); });
  io.restart();
  io.run_for(20s);
  EXPECT_TRUE(io.stopped()) << "the call still runs after 20 s";
  EXPECT_EQ(outcome.value_or(Status::Ok()).code(), StatusCode::kUnavailable);
  return attempts;
}

TEST_F(AsioFollowReload, CompletionDriverTakesEachReload) {
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(CompletionCall(io, live, *client, url), 1);  // started on one attempt; the reload landed during it
  EXPECT_EQ(CompletionCall(io, live, *client, url), 3);
  EXPECT_EQ(server.arrivals.load(), 4);
}

}  // namespace
}  // namespace stormguard::http
