// stormguard/http/chain_headers.h: the chain protocol on HTTP messages.
//
// Request side: x-request-timeout-ms (time left, relative so clock skew does
// not matter), optionally x-request-deadline (absolute, see
// HttpClientOptions::absolute_deadline), x-retry-attempt (this request is a
// retry), Idempotency-Key; optionally x-envoy-max-retries: 0 for the local
// Envoy sidecar (HttpClientOptions::ask_sidecar_not_to_retry).
// Response side: x-no-retry (a layer below already retried and gave up) and
// Retry-After (the server asks for a pause), read by StatusOfResponse.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "stormguard/core/call_context.h"
#include "stormguard/core/outcome.h"
#include "stormguard/core/result.h"
#include "stormguard/core/status.h"
#include "stormguard/core/time.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

// OK for no key or a sendable one; otherwise INVALID_ARGUMENT naming the
// field: a key that cannot be sent is refused before anything is sent, since
// retrying without it could run the request several times.
Status CheckIdempotencyKey(std::string_view key);

// The optional request headers, as the client options name them.
struct RequestChainOptions {
  bool absolute_deadline = false;         // x-request-deadline too
  bool ask_sidecar_not_to_retry = false;  // x-envoy-max-retries: 0
};

void AppendRequestChainHeaders(const CallContext& attempt, TimePoint now, const RequestChainOptions& options,
                               HeaderList& out);

// How an answer becomes a Status: what the request was and which hints to
// read. Both clients take it from the request (For), so one answer maps to
// one Status whichever client got it:
//   Status s = StatusOfResponse(response, ResponseMapping::For(request, /*chain_protocol=*/true));
//   Status t = StatusOfResponse(response, {.keyed = true, .retry_after_cap = 1s});
struct ResponseMapping {
  // Read the chain protocol's hints (x-no-retry, Retry-After); false: the
  // HTTP status alone, as a plain client.
  bool chain_protocol = true;
  // The request carried an Idempotency-Key: a 409 then means "the first one
  // is still running" (transient), not a conflict to fix.
  bool keyed = false;
  // The request may not run twice (neither an idempotent method nor keyed)
  // and reached the server, which may have acted on it: a transient or
  // overloaded answer is ambiguous, which a retry or hedge never repeats
  // for such a call.
  bool once_only = false;
  // The longest Retry-After passed on as pushback; the pipeline's retry and
  // hedge also clamp it to their own max_pushback.
  Duration retry_after_cap = kInfiniteDuration;

  static ResponseMapping For(const HttpRequest& request, bool chain_protocol) noexcept;
};

// OK for 1xx-3xx; otherwise the HTTP status as a Status with its class and
// the hints `mapping` asks for.
Status StatusOfResponse(const HttpResponse& response, const ResponseMapping& mapping);

// How an attempt went for the replica it reached (outlier_detection.h): an
// answer by its HTTP status alone (a 5xx counts against the replica whatever
// the chain headers say about retrying), a transport failure by its class.
OutcomeClass ReplicaOutcome(const Result<HttpResponse>& attempt);

}  // namespace stormguard::http
