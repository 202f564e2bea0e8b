// ServerGuard::Serve with the request and reply messages: keyed calls run at
// most once, through the options' KeyedAnswerStore; and KeyedCall, the part
// of it ServeCallback shares.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <string>

#include "keyed_call.h"
#include "stormguard/grpc/chain_metadata.h"
#include "stormguard/grpc/server.h"

namespace stormguard::rpc {
namespace grpc_internal {
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
bool Recorded(grpc::StatusCode code) {
  using C = grpc::StatusCode;
  switch (code) {
    case C::OK:
    case C::INVALID_ARGUMENT:
    case C::NOT_FOUND:
    case C::ALREADY_EXISTS:
    case C::PERMISSION_DENIED:
    case C::FAILED_PRECONDITION:
    case C::OUT_OF_RANGE:
    case C::UNAUTHENTICATED: return true;
    default: return false;
  }
}

grpc::Status Replay(const RecordedAnswer& answer, google::protobuf::Message& reply) {
  if (!reply.ParsePartialFromString(answer.body)) {
    return {grpc::StatusCode::INTERNAL, "the recorded reply of this idempotency key does not parse"};
  }
  return {static_cast<grpc::StatusCode>(answer.code), answer.message};
}

}  // namespace

KeyedCall::KeyedCall(KeyedAnswerStore& store, std::string caller, std::string key,
                     const google::protobuf::Message& request, google::protobuf::Message& reply)
    : store_(store),
      caller_(std::move(caller)),
      key_(std::move(key)),
      request_type_(request.GetDescriptor()->full_name()),
      reply_type_(reply.GetDescriptor()->full_name()),
      reply_(reply),
      fingerprint_(BodyFingerprint(Serialized(request))) {}

IdempotencyScope KeyedCall::scope() const noexcept { return {caller_, request_type_, reply_type_, key_}; }

KeyedCall::Claim KeyedCall::Begin(TimePoint now) {
  AnswerClaim claim = store_.Begin(scope(), fingerprint_, now);
  switch (claim.state) {
    case AnswerClaim::kFirst:
    case AnswerClaim::kRunning: return {claim.state, grpc::Status::OK};
    case AnswerClaim::kDone: return {claim.state, Replay(*claim.answer, reply_)};
    case AnswerClaim::kMismatch: break;
  }
  return {
      AnswerClaim::kMismatch,
      {grpc::StatusCode::INVALID_ARGUMENT, std::string(kIdempotencyKey) + ": already used for a different request"}};
}

void KeyedCall::Finish(const grpc::Status& status, TimePoint now) {
  if (!Recorded(status.error_code())) return store_.Abandon(scope());
  // gRPC sends no reply message with a failure: record none.
  store_.Complete(scope(),
                  {.code = static_cast<int>(status.error_code()),
                   .message = status.error_message(),
                   .headers = {},
                   .body = status.ok() ? Serialized(reply_) : std::string()},
                  now);
}

grpc::Status KeyedCall::Waited(const std::optional<RecordedAnswer>& done, bool out_of_time) {
  if (done) return Replay(*done, reply_);
  if (out_of_time) {
    return {grpc::StatusCode::DEADLINE_EXCEEDED, "the first call with this idempotency key is still running"};
  }
  // Only a failure that may pass forgets a key.
  return {grpc::StatusCode::UNAVAILABLE, "the first call with this idempotency key failed"};
}

}  // namespace grpc_internal

grpc::Status ServerGuard::Serve(grpc::ServerContextBase& context, const google::protobuf::Message& request,
                                google::protobuf::Message& reply, SyncHandler handler) {
  CallContext ctx;
  if (std::optional<grpc::Status> refused = Admit(context, ctx)) return *refused;
  if (o_.idempotency == nullptr || ctx.idempotency_key.empty()) {
    return Guarded(context, ctx, [&](CallContext& c) { return Run(context, handler, c); });
  }
  return Guarded(context, ctx, [&](CallContext& c) { return ServeKeyed(context, request, reply, handler, c); });
}

grpc::Status ServerGuard::ServeKeyed(grpc::ServerContextBase& context, const google::protobuf::Message& request,
                                     google::protobuf::Message& reply, SyncHandler handler, CallContext& ctx) {
  grpc_internal::KeyedCall call(*o_.idempotency, CallerOf(context), ctx.idempotency_key, request, reply);
  const grpc_internal::KeyedCall::Claim claim = call.Begin(o_.clock->Now());
  if (claim.state == AnswerClaim::kRunning) {
    // A repeat waits for the first's answer, as long as its own deadline
    // allows; both refusals are ones a keyed call retries.
    const Duration wait = std::min(ctx.deadline.Remaining(o_.clock->Now()), o_.limits.max_budget);
    std::optional<RecordedAnswer> done = o_.idempotency->AwaitCompletion(call.scope(), wait);
    return call.Waited(done, ctx.deadline.Expired(o_.clock->Now()));
  }
  if (claim.state != AnswerClaim::kFirst) return claim.answer;
  grpc::Status status = Run(context, handler, ctx);
  call.Finish(status, o_.clock->Now());
  return status;
}

std::string ServerGuard::CallerOf(const grpc::ServerContextBase& context) const {
  return o_.caller_identity ? o_.caller_identity(context) : std::string();
}

}  // namespace stormguard::rpc
