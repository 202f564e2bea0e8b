// stormguard/http/message.h: the request and response the HTTP clients
// speak, and the result both answer with.
//
//   HttpRequest req{.method = "POST", .url = "http://127.0.0.1:8080/charge",
//                   .body = R"({"amount": 5})", .idempotency_key = "order-7"};
//   HttpResult r = client.Send(req);  // or co_await async_client.Send(ctx, req)
//   if (r.ok()) use(r.response->body);
//
// Header names in an HttpResponse are lower-cased, so lookups are exact.
// Thread safety: plain value types.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stormguard/core/status.h"

namespace stormguard::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The default bound on an answer a client holds in memory (headers + body):
// far above a typical API answer, far below what would hurt a process.
inline constexpr std::size_t kDefaultMaxResponseBytes = std::size_t{16} << 20;

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  HeaderList headers;
  std::string body;
  // One logical operation across all its retries. A non-idempotent method
  // (POST, PATCH) is retried only when it carries one.
  std::string idempotency_key;
};

struct HttpResponse {
  int status = 0;
  HeaderList headers;  // names lower-cased
  std::string body;

  // The first header with this (lower-case) name.
  std::optional<std::string_view> Header(std::string_view lower_name) const;
};

// What a call of either client (HttpClient, AsyncCurlClient) answers. The
// status of an answer is StatusOfResponse's (chain_headers.h), the same for
// both: OK for 1xx-3xx; a transport failure's status when none came.
struct HttpResult {
  Status status;  // OK for a 2xx/3xx answer
  // The answer: the successful one, else the last failed one, when a server answered.
  std::optional<HttpResponse> response;
  int attempts = 0;  // requests sent (or tried to send)
  // The replica that gave `response` ("host:port"); "" without replicas.
  std::string endpoint;

  bool ok() const noexcept { return status.ok(); }
};

// GET, HEAD, PUT, DELETE, OPTIONS, TRACE: repeating them is safe by HTTP's
// definition (RFC 9110 9.2.2).
bool IsIdempotentMethod(std::string_view method) noexcept;

// GET, HEAD, OPTIONS, TRACE: they change nothing (RFC 9110 9.2.1), so there
// is nothing to deduplicate.
bool IsSafeMethod(std::string_view method) noexcept;

}  // namespace stormguard::http
