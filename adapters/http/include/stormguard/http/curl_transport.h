// stormguard/http/curl_transport.h: one HTTP exchange over libcurl, cancellable.
//
// PerformOnce sends one request and waits for its answer, no retries. It
// ends at the attempt's deadline (libcurl's own timeout) and at once when
// `stop` fires: a stop_callback wakes the curl_multi_poll loop, which then
// drops the transfer. Any HTTP answer, 5xx included, is a response; only
// transport failures are a Status, classified by what they say about the
// request:
//
//   could not resolve / connect, connect timed out  -> transient (never sent)
//   timed out or broken after the request was sent  -> ambiguous (may have run)
//   cancelled through `stop`                        -> cancelled
//   answer larger than max_response_bytes           -> permanent (it would repeat)
//
//   Result<HttpResponse> r = PerformOnce(req, extra_headers, deadline, 200ms, stop);
//
// Thread safety: each thread keeps its own curl handles (and connection
// cache); call from any number of threads.
#pragma once

#include <stop_token>
#include <string_view>

#include "stormguard/core/deadline.h"
#include "stormguard/core/result.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

struct TransportLimits {
  Deadline deadline;  // the attempt ends here
  Duration connect_timeout = std::chrono::milliseconds(500);
  TimePoint now{};                                            // when the attempt starts (for the timeout)
  std::size_t max_response_bytes = kDefaultMaxResponseBytes;  // headers + body held in memory
  // "host:port" of the replica to connect to instead of the URL's host and
  // port (which stay in the Host header); "": the URL's.
  std::string_view connect_to{};
};

Result<HttpResponse> PerformOnce(const HttpRequest& request, const HeaderList& extra_headers,
                                 const TransportLimits& limits, std::stop_token stop);

}  // namespace stormguard::http
