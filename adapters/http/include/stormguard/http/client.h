// stormguard/http/client.h: an HTTP client that calls through a pipeline.
//
// Every call gets a deadline (the current request's budget minus this hop's
// reserve, or a default) and runs its attempts through the client's
// pipeline: the retry with its budget, and the breaker, bulkhead, rate
// limiter, hedge and timeouts of the destination all apply to HTTP calls.
// It speaks the chain protocol: it sends x-request-timeout-ms,
// x-retry-attempt and Idempotency-Key, and honours x-no-retry and
// Retry-After in answers. Inside a request served by
// stormguard::http::Middleware, calls inherit that request's deadline, retry
// flag and cancellation without being told.
//
//   auto client = HttpClient::Create({.pipeline = presets::UserFacing().Build().value()});
//   HttpResult r = client->Send({.url = "http://127.0.0.1:8081/stock"});
//   if (r.ok()) use(r.response->body);
//
// One pipeline serves every method of a destination; each call says what
// may be repeated. GET/HEAD/PUT/DELETE/OPTIONS/TRACE are idempotent
// (CallContext::idempotent): retried and hedged even after a timeout. POST
// and PATCH repeat after an answer or a timeout only when they carry an
// idempotency key, and keep that one key across all their retries; without
// one, only a failure that sent nothing (a refused connection) is retried.
// A key that cannot be sent (longer than 256 characters, or not printable
// ASCII) is refused before anything is sent: retrying without it could run
// the request several times. An answer larger than max_response_bytes
// (headers and body) ends the call with an error naming the limit.
// Cancellation: the context's stop_token aborts a transfer at once.
// Thread safety: one HttpClient may be used from any number of threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/fleet/replica_set.h"
#include "stormguard/http/message.h"
#include "stormguard/pipeline/pipeline_ref.h"

namespace stormguard::http {

struct HttpClientOptions {
  // 200 ms - 1 s: a loaded LAN connects well within it, a dead host fails fast.
  Duration connect_timeout = std::chrono::milliseconds(500);
  // The budget of a call made outside any served request and without a deadline.
  Duration default_timeout = std::chrono::seconds(2);
  HopReserve reserve{.fraction = 0.1};  // keep 10-20% per hop (docs/deadlines.md)
  // The policies of the destination (required): fixed (a preset's, say), or
  // live (registry.Follow("inventory")) to follow every reload; each request
  // runs on the pipeline in force when it starts. A pipeline with no stages
  // (PipelineBuilder().Build()) sends each request once. Refused: a retry or
  // hedge with `idempotent` set (the client decides per request, above), and
  // a pipeline that cannot run blocking (a hedge without an Executor).
  PipelineRef pipeline;
  // The destination's replicas (registry.Replicas("inventory"), or a
  // ReplicaSet of your own); null: each request goes where its URL says.
  // With a set, each attempt connects to a replica the call has not tried
  // yet (a retry or a hedge goes elsewhere while one is left), picked by
  // the set's picker among the endpoints not ejected; the URL's host and
  // port stay in the Host header. An empty set: the URL's own address.
  // 5xx answers, timeouts and failures to connect count against the
  // replica (outlier_detection.h).
  std::shared_ptr<ReplicaSet> replicas;
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
  // Inside an Envoy / Istio mesh: send x-envoy-max-retries: 0 on every
  // attempt, so the local sidecar does not retry on top of this client's
  // pipeline (docs/chain-protocol.md, "Inside a mesh"). Off by default:
  // outside a mesh nothing reads it. Needs chain_protocol.
  bool ask_sidecar_not_to_retry = false;
  Clock* clock = &Clock::Real();  // of the deadlines; the pipeline's must be the same

  std::vector<std::string> Validate() const;
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
  explicit HttpClient(HttpClientOptions o) : o_(std::move(o)) {}
  HttpClientOptions o_;
};

}  // namespace stormguard::http
