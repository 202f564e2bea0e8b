// ServerGuard::Serve with the request and reply messages: keyed calls run at
// most once, through the options' KeyedAnswerStore.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <string>

#include "stormguard/grpc/chain_metadata.h"
#include "stormguard/grpc/server.h"

namespace stormguard::grpc {
namespace {

// Deterministic, so that one request always has one fingerprint (map
// fields are otherwise written in any order).
std::string Serialized(const google::protobuf::Message& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializePartialToCodedStream(&coded);
  }
  return out;
}

// Answers that a repeat of the same request would get again.
bool Recorded(::grpc::StatusCode code) {
  using C = ::grpc::StatusCode;
  switch (code) {
    case C::OK:
    case C::INVALID_ARGUMENT:
    case C::NOT_FOUND:
    case C::ALREADY_EXISTS:
    case C::PERMISSION_DENIED:
    case C::FAILED_PRECONDITION:
    case C::OUT_OF_RANGE:
    case C::UNAUTHENTICATED:
      return true;
    default:
      return false;
  }
}

::grpc::Status Replay(const RecordedAnswer& answer, google::protobuf::Message& reply) {
  if (!reply.ParsePartialFromString(answer.body)) {
    return {::grpc::StatusCode::INTERNAL, "the recorded reply of this idempotency key does not parse"};
  }
  return {static_cast<::grpc::StatusCode>(answer.code), answer.message};
}

}  // namespace

::grpc::Status ServerGuard::Serve(::grpc::ServerContextBase& context, const google::protobuf::Message& request,
                                  google::protobuf::Message& reply, SyncHandler handler) {
  CallContext ctx;
  if (std::optional<::grpc::Status> refused = Admit(context, ctx)) return *refused;
  if (o_.idempotency == nullptr) {
    return Guarded(context, ctx, [&](CallContext& c) { return Run(context, handler, c); });
  }
  if (ctx.idempotency_key.empty()) {
    // ReadIncomingChain drops a key it cannot read exactly.
    const ::grpc::string_ref name(kIdempotencyKey.data(), kIdempotencyKey.size());
    if (context.client_metadata().count(name) > 0) {
      return {::grpc::StatusCode::INVALID_ARGUMENT,
              std::string(kIdempotencyKey) + ": must be sent once, 1 to " +
                  std::to_string(o_.limits.max_idempotency_key_length) + " printable ASCII characters"};
    }
    return Guarded(context, ctx, [&](CallContext& c) { return Run(context, handler, c); });
  }
  return Guarded(context, ctx,
                 [&](CallContext& c) { return ServeKeyed(context, request, reply, handler, c); });
}

::grpc::Status ServerGuard::ServeKeyed(::grpc::ServerContextBase& context, const google::protobuf::Message& request,
                                       google::protobuf::Message& reply, SyncHandler handler, CallContext& ctx) {
  const std::string caller = o_.caller_identity ? o_.caller_identity(context) : std::string();
  const IdempotencyScope scope{caller, request.GetDescriptor()->full_name(), reply.GetDescriptor()->full_name(),
                               ctx.idempotency_key};
  KeyedAnswerStore& store = *o_.idempotency;
  AnswerClaim claim = store.Begin(scope, BodyFingerprint(Serialized(request)), o_.clock->Now());
  switch (claim.state) {
    case AnswerClaim::kFirst:
      break;
    case AnswerClaim::kDone:
      return Replay(*claim.answer, reply);
    case AnswerClaim::kRunning:
      return AwaitFirst(scope, ctx, reply);
    case AnswerClaim::kMismatch:
      return {::grpc::StatusCode::INVALID_ARGUMENT,
              std::string(kIdempotencyKey) + ": already used for a different request"};
  }
  ::grpc::Status status = Run(context, handler, ctx);
  if (!Recorded(status.error_code())) {
    store.Abandon(scope);
    return status;
  }
  // gRPC sends no reply message with a failure: record none.
  store.Complete(scope,
                 {.code = static_cast<int>(status.error_code()), .message = status.error_message(), .headers = {},
                  .body = status.ok() ? Serialized(reply) : std::string()},
                 o_.clock->Now());
  return status;
}

// A repeat that found the first call running waits for its answer, as long
// as its own deadline allows. Both refusals are ones a keyed call retries:
// its next attempt finds the answer recorded, or runs.
::grpc::Status ServerGuard::AwaitFirst(const IdempotencyScope& scope, const CallContext& ctx,
                                       google::protobuf::Message& reply) {
  const Duration wait = std::min(ctx.deadline.Remaining(o_.clock->Now()), o_.limits.max_budget);
  std::optional<RecordedAnswer> done = o_.idempotency->AwaitCompletion(scope, wait);
  if (done) return Replay(*done, reply);
  if (ctx.deadline.Expired(o_.clock->Now())) {
    return {::grpc::StatusCode::DEADLINE_EXCEEDED, "the first call with this idempotency key is still running"};
  }
  // Only a failure that may pass forgets a key.
  return {::grpc::StatusCode::UNAVAILABLE, "the first call with this idempotency key failed"};
}

}  // namespace stormguard::grpc
