// stormguard/grpc/status_map.h: grpc::Status <-> Status, and what a gRPC
// failure means for retrying it.
//
// The codes are the same canonical codes on both sides, so the mapping
// keeps code and message. A failed call's outcome class is set explicitly:
//   UNAVAILABLE         transient: gRPC's own default retryable code (the
//                       service is down or unreachable; usually nothing ran).
//   RESOURCE_EXHAUSTED  overloaded: retried only within a budget, after
//                       backoff, and after the server's pushback.
//   DEADLINE_EXCEEDED   ambiguous: the server may have run it, so only an
//                       idempotent (or keyed) call repeats it.
//   UNKNOWN             ambiguous: an unknown failure may have had effects.
//   CANCELLED           cancelled: the caller went away.
//   ABORTED and everything else: permanent. gRPC's status guide says an
//                       ABORTED call is retried at a higher level (restart
//                       the read-modify-write), never as the same request.
// The trailers' grpc-retry-pushback-ms becomes the status' hints (gRPC A6):
// "-1", any negative value and anything unparseable mean "do not retry";
// otherwise a pause of that many ms, clamped to [0, max_pushback].
//
//   Status s = FromGrpc(grpc_status, ctx.GetServerTrailingMetadata(), 30s);
//   grpc::Status g = ToGrpc(Status::Unavailable("inventory down"));
//
// Thread safety: pure functions.
#pragma once

#include <grpcpp/support/status.h>
#include <grpcpp/support/string_ref.h>

#include <map>

#include "stormguard/core/status.h"

namespace stormguard::rpc {

using Trailers = std::multimap<grpc::string_ref, grpc::string_ref>;

StatusCode FromGrpcCode(grpc::StatusCode code) noexcept;
grpc::StatusCode ToGrpcCode(StatusCode code) noexcept;

// The outcome class of a gRPC status code, as listed above.
OutcomeClass ClassifyGrpcStatus(grpc::StatusCode code) noexcept;

// The call's status with its outcome class and the trailers' retry hints.
Status FromGrpc(const grpc::Status& status, const Trailers& trailers, Duration max_pushback);
grpc::Status ToGrpc(const Status& status);

}  // namespace stormguard::rpc
