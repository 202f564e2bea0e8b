// The etcd v3 JSON gateway's messages, as stormguard needs them: building
// Range and Watch requests and reading their answers.
//
// Also the authentication exchange (a user name and password for a token)
// and leases: a registration's grant, put, keepalive and revoke.
//
// The gateway speaks protobuf's JSON mapping: bytes are base64, int64 are
// strings ("revision":"4"), and fields at their proto3 default are omitted
// (a PUT event has no "type"; a first watch has no "watch_id"). Every
// number read is checked: revisions are in [0, 2^63 - 2], so "+1" is safe.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"

namespace stormguard::config_sources {

std::string Base64Encode(std::string_view bytes);
// INVALID_ARGUMENT for anything but padded standard base64.
Result<std::string> Base64Decode(std::string_view text);

// The smallest key above every key that starts with `prefix` (etcd's
// range_end for a prefix); "\0" (every key) when there is none.
std::string PrefixEnd(std::string_view prefix);

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t mod_revision = 0;
};

struct RangeReply {
  std::int64_t revision = 0;  // header.revision: the store's revision at the read
  std::vector<KeyValue> kvs;
  bool more = false;  // the limit cut the answer short
};

struct WatchEvent {
  bool deleted = false;
  KeyValue kv;  // a delete carries only the key and mod_revision
};

struct WatchReply {
  std::int64_t revision = 0;  // header.revision; 0 when absent (a cancel)
  bool created = false;
  bool canceled = false;
  std::int64_t compact_revision = 0;
  std::string cancel_reason;
  std::vector<WatchEvent> events;

  // No events, no state change, a revision: everything up to it was sent.
  bool IsProgressNotify() const noexcept {
    return events.empty() && !created && !canceled && compact_revision == 0 && revision != 0;
  }
};

// `range_end` empty: the single key. `limit` 0: no limit.
std::string RangeRequest(std::string_view key, std::string_view range_end, std::int64_t limit);
std::string WatchRequest(std::string_view key, std::string_view range_end, std::int64_t start_revision);

std::string AuthenticateRequest(std::string_view user, std::string_view password);

struct LeaseGrant {
  std::int64_t id = 0;
  std::int64_t ttl_seconds = 0;
};

std::string LeaseGrantRequest(std::int64_t ttl_seconds);
// The body of /v3/lease/keepalive and /v3/lease/revoke.
std::string LeaseIdRequest(std::int64_t id);
// `lease` 0: a key without a lease.
std::string PutRequest(std::string_view key, std::string_view value, std::int64_t lease);

Result<RangeReply> ParseRangeReply(std::string_view body);
// The token of a /v3/auth/authenticate answer: printable, no spaces, since
// it goes into a header as it is.
Result<std::string> ParseAuthenticateReply(std::string_view body);
Result<LeaseGrant> ParseLeaseGrantReply(std::string_view body);
// The TTL a keepalive left the lease with; 0 when etcd no longer has the
// lease (it expired, was revoked, or etcd lost its data).
Result<std::int64_t> ParseKeepAliveReply(std::string_view body);
// One line of the watch stream: {"result": {...}} or {"error": {...}}; the
// latter, and anything malformed, is an error Status.
Result<WatchReply> ParseWatchLine(std::string_view line);
// The Status an HTTP error answer stands for: gRPC's code from the body's
// "code" (or "grpc_code") when present, with etcd's message.
Status ParseErrorReply(long http_status, std::string_view body);

}  // namespace stormguard::config_sources
