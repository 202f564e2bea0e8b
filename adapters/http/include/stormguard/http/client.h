// stormguard/http/client.h: an HTTP client that retries like stormguard means it.
//
// Every call gets a deadline (the current request's budget minus this hop's
// reserve, or a default), runs its attempts through a RetryPolicy, and
// speaks the chain protocol: it sends x-request-timeout-ms, x-retry-attempt
// and Idempotency-Key, and honours x-no-retry and Retry-After in answers.
// Inside a request served by stormguard::http::Server, calls inherit that
// request's deadline, retry flag and cancellation without being told.
//
//   auto client = HttpClient::Create({.retry = {.max_attempts = 3}});
//   HttpResult r = client->Send({.url = "http://127.0.0.1:8081/stock"});
//   if (r.ok()) use(r.response->body);
//
// GET/HEAD/PUT/DELETE/OPTIONS retry; POST and PATCH retry only when they
// carry an idempotency key, and keep that one key across all their retries.
// A key that cannot be sent (longer than 256 characters, or not printable
// ASCII) is refused before anything is sent: retrying without it could run
// the request several times. An answer larger than max_response_bytes
// (headers and body) ends the call with an error naming the limit.
// Cancellation: the context's stop_token aborts a transfer at once.
// Thread safety: one HttpClient may be used from any number of threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/retry/retry_driver.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

struct HttpClientOptions {
  // 200 ms - 1 s: a loaded LAN connects well within it, a dead host fails fast.
  Duration connect_timeout = std::chrono::milliseconds(500);
  // The budget of a call made outside any served request and without a deadline.
  Duration default_timeout = std::chrono::seconds(2);
  HopReserve reserve{.fraction = 0.1};  // keep 10-20% per hop (docs/deadlines.md)
  RetryOptions retry;                   // `idempotent` is derived per request
  // The largest answer (headers and body) the client holds in memory; a
  // larger or endless one fails the attempt (not retried: it would repeat).
  std::size_t max_response_bytes = kDefaultMaxResponseBytes;
  // false: a plain client that neither sends nor honours chain headers (the
  // naive baseline of the demo).
  bool chain_protocol = true;
  // Also send the deadline as absolute wall-clock time (x-request-deadline).
  // The relative budget starts counting when the server reads the request,
  // so it cannot see time the request spent queued before that (a paused or
  // overloaded server's accept queue): the server would work for a caller
  // that already gave up. The server takes the earlier of the two, so only
  // turn this on where caller and server share a clock (one host): a server
  // clock running ahead would refuse requests as expired.
  bool absolute_deadline = false;
  Clock* clock = &Clock::Real();

  std::vector<std::string> Validate() const;
};

struct HttpResult {
  Status status;                        // OK for a 2xx/3xx answer
  std::optional<HttpResponse> response; // the last answer, when a server answered
  RetryRun run;

  bool ok() const noexcept { return status.ok(); }
};

class HttpClient {
 public:
  static Result<HttpClient> Create(HttpClientOptions options);

  // Inherits CurrentCallContext() when there is one.
  HttpResult Send(const HttpRequest& request) const;
  // `parent` is the context of the work this call belongs to; the call's own
  // context (deadline for the next hop, attempt numbers) is derived from it.
  // When the call gives up for the chain, parent.downstream_gave_up is set.
  HttpResult Send(const HttpRequest& request, CallContext& parent) const;

 private:
  HttpClient(HttpClientOptions o, RetryPolicy retrying, RetryPolicy once)
      : o_(std::move(o)), retrying_(std::move(retrying)), once_(std::move(once)) {}
  HttpClientOptions o_;
  RetryPolicy retrying_;  // idempotent requests and keyed ones
  RetryPolicy once_;      // non-idempotent requests without a key
};

}  // namespace stormguard::http
