// stormguard/grpc/chain_metadata.h: the chain protocol in gRPC metadata.
//
// Request (client -> server):
//   deadline                 the call's own deadline (grpc-timeout, set by
//                            gRPC from ClientContext::set_deadline)
//   x-stormguard-attempt: 2  this request is a retry (sent from attempt 2 on)
//   idempotency-key: K       one logical operation across retries
//   x-envoy-max-retries: 0   only when asked (AttemptMetadataOptions): the
//                            local Envoy sidecar must not retry on top
// gRPC's own grpc-previous-rpc-attempts is read too but never written: with
// native retries on (gRPC's default) the retry filter rewrites it on every
// attempt, so a value of ours would not arrive. So is x-envoy-attempt-count,
// an Envoy sidecar's count (>= 2: the sidecar retried).
// Response trailers (server -> client): grpc-retry-pushback-ms, "-1" = do
// not retry (status_map.h reads it; plain gRPC clients honour it too).
//
// Thread safety: pure functions; a ClientContext belongs to one attempt.
#pragma once

#include <grpc/support/time.h>
#include <grpcpp/client_context.h>
#include <grpcpp/server_context.h>

#include <string_view>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/grpc/status_map.h"
#include "stormguard/wire/http_headers.h"

namespace stormguard::rpc {

inline constexpr std::string_view kAttemptKey = "x-stormguard-attempt";
inline constexpr std::string_view kPreviousAttemptsKey = "grpc-previous-rpc-attempts";
inline constexpr std::string_view kEnvoyAttemptCountKey = kDefaultWireNames.envoy_attempt_count;
inline constexpr std::string_view kEnvoyMaxRetriesKey = kDefaultWireNames.envoy_max_retries;
inline constexpr std::string_view kIdempotencyKey = "idempotency-key";
inline constexpr std::string_view kPushbackKey = "grpc-retry-pushback-ms";

using ClientMetadata = Trailers;  // the same multimap of views

// What an attempt's metadata carries beyond the chain protocol.
struct AttemptMetadataOptions {
  bool ask_sidecar_not_to_retry = false;  // x-envoy-max-retries: 0 (GrpcClientOptions)
};

// Sets the attempt's deadline on `out` (converted from `now` on the
// deadline's clock to the system clock gRPC uses; an infinite deadline sets
// none) and adds the attempt number and the idempotency key. The key must be
// valid (IsValidIdempotencyKey): the client checks it before the first attempt.
void PrepareAttempt(const CallContext& attempt, TimePoint now, grpc::ClientContext& out,
                    const AttemptMetadataOptions& options = {});

// What the caller's metadata says about the request.
struct IncomingChain {
  // x-stormguard-attempt >= 2, x-envoy-attempt-count >= 2 or
  // grpc-previous-rpc-attempts >= 1, in any of its values.
  bool is_retry = false;
  // Empty when absent or unreadable.
  std::string idempotency_key;
  // A key was sent but cannot be read exactly: repeated, or not a valid key
  // (see IsValidIdempotencyKey). It deduplicates nothing, so the call must
  // be refused, not run as if it carried none.
  bool unreadable_key = false;
};
IncomingChain ReadIncomingChain(const ClientMetadata& metadata, std::size_t max_key_length = kMaxIdempotencyKeyLength);

// The time a served call has left: its deadline as gRPC keeps it
// (ServerContextBase::raw_deadline()) against the present on that clock.
// ServerContextBase::deadline() is no use for this: its system_clock
// nanoseconds overflow past the year 2262, so a grpc-timeout of 2067000H or
// more would read as long past.
Duration RemainingOf(const grpc::ServerContextBase& context);

// The time from `now` until `deadline`, two times on one gRPC clock:
// kInfiniteDuration when the deadline is gRPC's infinite future ("none"),
// zero when it passed, at most kMaxWireDuration (a larger budget is clamped
// to the server's maximum anyway).
Duration RemainingUntil(gpr_timespec deadline, gpr_timespec now) noexcept;

}  // namespace stormguard::rpc
