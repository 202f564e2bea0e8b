// A coroutine service calling a downstream through a pipeline, on one
// io_context thread: retries wait on Asio timers, and a timeout cancels the
// exchange in flight. The downstream here is a loopback cpp-httplib server
// in the same process that answers 503 twice, so the retries show:
//
//   request 1: HTTP 503
//   request 2: HTTP 503
//   request 3: HTTP 200
//   answer after 3 attempts: 42 in stock
#include <httplib.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "stormguard/asio/async_curl_client.h"
#include "stormguard/asio/coroutine_driver.h"

using namespace std::chrono_literals;
using stormguard::CallContext;
using stormguard::Result;
using stormguard::http::AsyncCurlClient;
using stormguard::http::HttpRequest;
using stormguard::http::HttpResult;

// One request of the service: fetch the stock through the pipeline.
asio::awaitable<void> Serve(const stormguard::PipelineRef& pipeline, AsyncCurlClient& client, std::string url,
                            const std::atomic<int>& hits, bool& ok) {
  // A GET may run twice with the effect of once: this request says so.
  CallContext ctx{.deadline = stormguard::Deadline::After(stormguard::Clock::Real().Now(), 3s), .idempotent = true};
  // The request is a named variable, not a braced temporary: GCC 12
  // mishandles those as coroutine arguments.
  // [snippet:coroutine]
  Result<std::string> stock = co_await pipeline.Execute(ctx, [&](CallContext& c) -> asio::awaitable<Result<std::string>> {
    HttpRequest request{.url = url};
    HttpResult r = co_await client.Send(c, std::move(request));
    if (!r.ok()) co_return r.status;  // 503: UNAVAILABLE, retried
    co_return r.response->body;
  });
  // [end snippet]
  if (stock.ok()) {
    std::printf("answer after %d attempts: %s\n", hits.load(), stock->c_str());
  } else {
    std::printf("failed: %s\n", stock.status().ToString().c_str());
  }
  ok = stock.ok() && hits == 3;
}

int main() {
  httplib::Server downstream;
  std::atomic<int> hits{0};
  downstream.Get("/stock", [&](const httplib::Request&, httplib::Response& res) {
    const int n = ++hits;
    res.status = n <= 2 ? 503 : 200;
    std::printf("request %d: HTTP %d\n", n, res.status);
    if (n > 2) res.set_content("42 in stock", "text/plain");
  });
  const int port = downstream.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { downstream.listen_after_bind(); });
  for (int i = 0; i < 100000 && !downstream.is_running(); ++i) std::this_thread::yield();

  stormguard::PipelineRef pipeline = stormguard::PipelineBuilder()
                                      .AddTimeout(3s)
                                      .AddRetry({.max_attempts = 3, .backoff = {.base = 50ms}})
                                      .AddAttemptTimeout(1s)
                                      .Build()
                                      .value();
  asio::io_context io;
  auto client = AsyncCurlClient::Create(io, {}).value();
  bool ok = false;
  asio::co_spawn(io, Serve(pipeline, *client, "http://127.0.0.1:" + std::to_string(port) + "/stock", hits, ok),
                 [](std::exception_ptr e) {
                   if (e) std::rethrow_exception(e);
                 });
  io.run_for(10s);  // bounded: the call ends within its 3 s deadline
  downstream.stop();
  serving.join();
  return ok ? 0 : 1;
}
