#include "stormguard/grpc/status_map.h"

#include "stormguard/wire/propagation.h"

namespace stormguard::rpc {

StatusCode FromGrpcCode(grpc::StatusCode code) noexcept {
  const int n = static_cast<int>(code);
  // Codes past the canonical sixteen (a peer's own numbers) are unknown.
  if (n < 0 || n > static_cast<int>(StatusCode::kUnauthenticated)) return StatusCode::kUnknown;
  return static_cast<StatusCode>(n);
}

grpc::StatusCode ToGrpcCode(StatusCode code) noexcept { return static_cast<grpc::StatusCode>(static_cast<int>(code)); }

OutcomeClass ClassifyGrpcStatus(grpc::StatusCode code) noexcept {
  switch (code) {
    case grpc::StatusCode::OK: return OutcomeClass::kSuccess;
    case grpc::StatusCode::CANCELLED: return OutcomeClass::kCancelled;
    case grpc::StatusCode::UNAVAILABLE: return OutcomeClass::kTransient;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return OutcomeClass::kOverloaded;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::UNKNOWN: return OutcomeClass::kAmbiguous;
    default: return OutcomeClass::kPermanent;
  }
}

Status FromGrpc(const grpc::Status& status, const Trailers& trailers, Duration max_pushback) {
  if (status.ok()) return Status::Ok();
  Status s(FromGrpcCode(status.error_code()), status.error_message());
  // Only grpc-retry-pushback-ms is read: an HTTP header name in the trailers
  // is not part of the gRPC protocol. No wall clock is needed for it.
  WireNames names;
  names.no_retry = {};
  names.retry_after = {};
  RetryHints hints = ReadRetryHints(trailers, 0, max_pushback, names);
  hints.outcome = ClassifyGrpcStatus(status.error_code());
  return std::move(s).WithHints(std::move(hints));
}

grpc::Status ToGrpc(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return {ToGrpcCode(status.code()), status.message()};
}

}  // namespace stormguard::rpc
