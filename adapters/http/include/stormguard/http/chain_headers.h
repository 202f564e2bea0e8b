// stormguard/http/chain_headers.h: the chain protocol on HTTP messages.
//
// Request side: x-request-timeout-ms (time left, relative so clock skew does
// not matter), optionally x-request-deadline (absolute, see
// HttpClientOptions::absolute_deadline), x-retry-attempt (this request is a
// retry), Idempotency-Key.
// Response side: x-no-retry (a layer below already retried and gave up) and
// Retry-After (the server asks for a pause).
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "stormguard/core/call_context.h"
#include "stormguard/core/status.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

// OK for no key or a sendable one; otherwise INVALID_ARGUMENT naming the
// field: a key that cannot be sent is refused before anything is sent, since
// retrying without it could run the request several times.
Status CheckIdempotencyKey(std::string_view key);

void AppendRequestChainHeaders(const CallContext& attempt, TimePoint now, bool absolute_deadline, HeaderList& out);

// OK for 1xx-3xx; otherwise the HTTP status as a Status with its class and,
// when `chain_protocol`, the do-not-retry and pushback hints of the answer
// (pushback clamped to `max_pushback`). A 409 to a request that carried an
// Idempotency-Key (`keyed`) means "the first one is still running": transient.
Status StatusOfResponse(const HttpResponse& response, bool chain_protocol, bool keyed,
                        Duration max_pushback);

}  // namespace stormguard::http
