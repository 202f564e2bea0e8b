// stormguard/asio/async_curl_client.h: HTTP exchanges for C++20 coroutines,
// without a thread per call.
//
// One client owns one curl multi handle and is driven by the io_context it
// was made with: curl's sockets and timer become Asio waits, so a single
// thread carries thousands of exchanges at once. Send is one exchange, no
// retries: the transport an asynchronous pipeline wraps to get them.
//
//   asio::io_context io;
//   auto client = AsyncCurlClient::Create(io, {}).value();
//   CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 300ms)};
//   HttpResult r = co_await client->Send(ctx, {.url = "http://127.0.0.1:8081/stock"});
//   if (r.ok()) use(r.response->body);  // else r.status: a 503 is UNAVAILABLE
//
// As the blocking HttpClient (adapters/http) does, with the same functions:
// - the exchange ends at ctx.deadline (default_timeout when it has none),
//   which goes out in the chain headers (x-request-timeout-ms, the retry
//   flag from ctx.attempt, Idempotency-Key); ctx is the attempt's own
//   context, so derive it for the next hop (Deadline::ForNextHop) first;
// - a key that cannot be sent is refused before anything is sent;
// - an answer over max_response_bytes fails with an error naming the limit;
// - the result has HttpClient's shape (HttpResult, attempts 1 once the
//   exchange started), with the answer's status mapped as HttpClient maps
//   it (StatusOfResponse and ResponseMapping::For in http/chain_headers.h):
//   an attempt returns r.status to the pipeline; transport failures are
//   classified as in curl_transport.h.
// Replicas: Send with a CallRouting (fleet/call_routing.h, one per call)
// connects to a replica that call has not tried yet, as HttpClient does
// with its replicas (the URL's host stays in Host), reports the attempt's
// outcome to the set, and names the replica in HttpResult::endpoint.
// Cancellation: a terminal cancellation of the awaiting coroutine (its
// cancellation slot) drops the transfer at once and resumes it with
// CANCELLED (DEADLINE_EXCEEDED when the deadline has passed). ctx.stop is
// read before sending; on the asynchronous path the slot cancels.
// Thread safety: none. Use a client only from coroutines on its io_context,
// run by one thread (one client per io_context thread), and destroy it after
// its exchanges have completed or the io_context has stopped.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/result.h"
#include "stormguard/fleet/call_routing.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

class CurlMultiLoop;

struct AsyncCurlClientOptions {
  // 200 ms - 1 s: a loaded LAN connects well within it, a dead host fails fast.
  Duration connect_timeout = std::chrono::milliseconds(500);
  // The budget of an exchange whose context has no deadline.
  Duration default_timeout = std::chrono::seconds(2);
  // The largest answer (headers and body) held in memory per exchange.
  std::size_t max_response_bytes = kDefaultMaxResponseBytes;
  // false: neither send nor read chain headers.
  bool chain_protocol = true;
  // Also send x-request-deadline (see HttpClientOptions::absolute_deadline).
  bool absolute_deadline = false;
  Clock* clock = &Clock::Real();  // the clock of ctx.deadline

  std::vector<std::string> Validate() const;
};

class AsyncCurlClient {
 public:
  static Result<std::unique_ptr<AsyncCurlClient>> Create(asio::io_context& io, AsyncCurlClientOptions options);
  ~AsyncCurlClient();
  AsyncCurlClient(const AsyncCurlClient&) = delete;
  AsyncCurlClient& operator=(const AsyncCurlClient&) = delete;

  // Arguments by value: they live in the coroutine frame for the whole exchange.
  asio::awaitable<HttpResult> Send(CallContext ctx, HttpRequest request);
  // To a replica `routing` picks; `routing` must outlive the exchange.
  asio::awaitable<HttpResult> Send(CallContext ctx, HttpRequest request, CallRouting& routing);

  // Exchanges started and not yet completed or cancelled.
  std::size_t in_flight() const noexcept { return transfers_.size(); }

 private:
  struct Transfer;
  AsyncCurlClient(asio::io_context& io, AsyncCurlClientOptions options);
  Result<std::unique_ptr<Transfer>> Prepare(const CallContext& ctx, HttpRequest request, std::string connect_to) const;
  asio::awaitable<HttpResult> Exchange(CallContext ctx, HttpRequest request, CallRouting* routing);
  void Start(std::unique_ptr<Transfer> t);
  // Removes an exchange from the books; null when it already completed.
  std::unique_ptr<Transfer> Take(std::uint64_t id);
  void Cancel(std::uint64_t id);

  AsyncCurlClientOptions o_;
  std::unique_ptr<CurlMultiLoop> loop_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Transfer>> transfers_;
  std::uint64_t next_id_ = 1;
};

}  // namespace stormguard::http
