// POSTs to the etcd gateway over libcurl: an answer read whole (Range) or a
// stream of newline-delimited JSON read line by line (Watch).
//
// Both end at once when `stop` is requested: a stop callback wakes the
// curl_multi_poll wait, and curl's transfer-progress callback refuses to go
// on, so nothing waits for a byte that may never come. Every answer is
// bounded: a whole answer, an error body, or one stream line longer than
// `max_bytes` ends the transfer with RESOURCE_EXHAUSTED.
//
// Failures: could not connect, broken, timed out -> UNAVAILABLE or
// DEADLINE_EXCEEDED, in our words ("etcd watch stream ended: the connection
// closed in the middle of an answer"); a TLS failure -> UNAVAILABLE
// "...: TLS: " and what failed (etcd's certificate not trusted, our client
// certificate refused, a file curl could not use); an HTTP error -> the
// gRPC code in etcd's answer.
//
// Thread safety: each call uses its own curl handles; call from any thread.
#pragma once

#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::config_sources {

struct EtcdHttpLimits {
  Duration connect_timeout = std::chrono::seconds(1);
  Duration request_timeout = Duration::zero();  // the whole transfer; zero: none (a stream)
  std::size_t max_bytes = 0;
};

// Who the client is to etcd: TLS material (PEM files; "" for each: curl's
// defaults, the system's CAs and no client certificate) and an etcd auth
// token, sent as the Authorization header when not empty.
struct EtcdIdentity {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string token;
};

class LineHandler {
 public:
  virtual ~LineHandler() = default;
  // One complete line of the stream; an error ends it with that status.
  virtual Status OnLine(std::string_view line) = 0;
  // Called after each batch of received data and when a wait times out:
  // does deferred work, and says how long the stream may wait for data
  // before calling again (at most a second is waited in any case); an
  // error ends the stream with that status.
  virtual Result<Duration> Idle() = 0;
};

Result<std::string> EtcdPost(const std::string& url, const std::string& body, const EtcdHttpLimits& limits,
                             const EtcdIdentity& identity, std::stop_token stop);

// Returns when the stream ends: the handler's error, a transport failure,
// CANCELLED on stop, or UNAVAILABLE "etcd watch stream ended: <why>" once
// a stream that had begun (a 200 answer) breaks or is closed.
Status EtcdStream(const std::string& url, const std::string& body, const EtcdHttpLimits& limits,
                  const EtcdIdentity& identity, LineHandler& handler, std::stop_token stop);

}  // namespace stormguard::config_sources
