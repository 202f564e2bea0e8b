// stormguard/grpc/chain_metadata.h: the chain protocol in gRPC metadata.
//
// Request (client -> server):
//   deadline                 the call's own deadline (grpc-timeout, set by
//                            gRPC from ClientContext::set_deadline)
//   x-stormguard-attempt: 2  this request is a retry (sent from attempt 2 on)
//   idempotency-key: K       one logical operation across retries
// gRPC's own grpc-previous-rpc-attempts is read too but never written: with
// native retries on (gRPC's default) the retry filter rewrites it on every
// attempt, so a value of ours would not arrive.
// Response trailers (server -> client): grpc-retry-pushback-ms, "-1" = do
// not retry (status_map.h reads it; plain gRPC clients honour it too).
//
// Thread safety: pure functions; a ClientContext belongs to one attempt.
#pragma once

#include <grpcpp/client_context.h>

#include <string_view>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/grpc/status_map.h"
#include "stormguard/wire/http_headers.h"

namespace stormguard::grpc {

inline constexpr std::string_view kAttemptKey = "x-stormguard-attempt";
inline constexpr std::string_view kPreviousAttemptsKey = "grpc-previous-rpc-attempts";
inline constexpr std::string_view kIdempotencyKey = "idempotency-key";
inline constexpr std::string_view kPushbackKey = "grpc-retry-pushback-ms";

using ClientMetadata = Trailers;  // the same multimap of views

// Sets the attempt's deadline on `out` (converted from `now` on the
// deadline's clock to the system clock gRPC uses; an infinite deadline sets
// none) and adds the attempt number and the idempotency key. The key must be
// valid (IsValidIdempotencyKey): the client checks it before the first attempt.
void PrepareAttempt(const CallContext& attempt, TimePoint now, ::grpc::ClientContext& out);

// What the caller's metadata says about the request.
struct IncomingChain {
  bool is_retry = false;             // x-stormguard-attempt >= 2 or grpc-previous-rpc-attempts >= 1
  // Empty when absent or unreadable.
  std::string idempotency_key;
  // A key was sent but cannot be read exactly: repeated, or not a valid key
  // (see IsValidIdempotencyKey). It deduplicates nothing, so the call must
  // be refused, not run as if it carried none.
  bool unreadable_key = false;
};
IncomingChain ReadIncomingChain(const ClientMetadata& metadata,
                                std::size_t max_key_length = kMaxIdempotencyKeyLength);

// The time left before `deadline`, a system-clock time as gRPC keeps it
// (time_point::max() is gRPC's "no deadline": kInfiniteDuration).
Duration RemainingUntil(std::chrono::system_clock::time_point deadline,
                        std::chrono::system_clock::time_point now) noexcept;

}  // namespace stormguard::grpc
