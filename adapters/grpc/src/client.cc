#include "stormguard/grpc/client.h"

#include <atomic>

#include "stormguard/core/classifier.h"
#include "stormguard/core/validation.h"
#include "stormguard/fleet/call_routing.h"
#include "stormguard/grpc/callback_client.h"
#include "stormguard/grpc/internal/call_setup.h"
#include "stormguard/grpc/status_map.h"

namespace stormguard::rpc {

std::vector<std::string> GrpcClientOptions::Validate() const {
  Validator v;
  v.Check(static_cast<bool>(pipeline), "pipeline", "is required (PipelineBuilder().Build() for none)");
  if (pipeline) {
    const PipelineRef in_force = pipeline.Pin();
    const std::string why = in_force.get()->RepeatsEveryCall();
    v.Check(why.empty(), "pipeline", why);
  }
  v.Check(default_timeout > Duration::zero(), "default_timeout", "must be positive");
  v.CheckRange(reserve.fraction, "reserve.fraction", Range{0.0, 1.0, false, true});
  v.Check(reserve.overhead >= Duration::zero(), "reserve.overhead", "must not be negative");
  v.Check(clock != nullptr, "clock", "must not be null");
  v.Check(replicas == nullptr || static_cast<bool>(make_channel), "make_channel", "must be set with replicas");
  return std::move(v).errors();
}

GrpcClient::GrpcClient(GrpcClientOptions o) : o_(std::move(o)) {
  if (o_.replicas) channels_ = std::make_shared<ReplicaChannels>(*o_.replicas, o_.make_channel);
}

Result<GrpcClient> GrpcClient::Create(GrpcClientOptions options) {
  Status s = ValidationStatus("grpc client options", options.Validate());
  if (!s.ok()) return s;
  return GrpcClient(std::move(options));
}

Result<GrpcCallbackClient> GrpcCallbackClient::Create(GrpcClientOptions options) {
  Status s = ValidationStatus("grpc client options", options.Validate());
  if (!s.ok()) return s;
  return GrpcCallbackClient(std::move(options));
}

namespace grpc_internal {

Status MakeCallContext(const GrpcClientOptions& o, const CallContext& parent, const CallOptions& options,
                       CallContext& call) {
  const std::string& key = options.idempotency_key;
  if (!key.empty() && !IsValidIdempotencyKey(key)) {
    return Status::InvalidArgument("idempotency_key: must be 1 to " + std::to_string(kMaxIdempotencyKeyLength) +
                                   " printable ASCII characters; nothing was sent");
  }
  const TimePoint now = o.clock->Now();
  call.deadline = parent.deadline.ForNextHop(now, o.reserve).Within(now, o.default_timeout);
  call.stop = parent.stop;
  call.incoming_is_retry = parent.incoming_is_retry;
  call.idempotent = options.idempotent;
  call.idempotency_key = key;
  call.idempotency_decided = true;  // by the caller, per call: never by the pipeline
  return Status::Ok();
}

void ReportToParent(const CallContext& call, const Status& status, CallContext& parent) noexcept {
  const RetryHints& h = status.hints();
  if (call.downstream_gave_up || h.do_not_retry || h.pushback_stop) parent.downstream_gave_up = true;
}

}  // namespace grpc_internal

GrpcResult GrpcClient::Run(CallContext& parent, const CallOptions& options,
                           FunctionRef<grpc::Status(grpc::ClientContext&)> attempt) const {
  GrpcResult result;
  CallContext call;
  result.status = grpc_internal::MakeCallContext(o_, parent, options, call);
  if (!result.status.ok()) return result;
  Clock& clock = *o_.clock;
  std::atomic<int> attempts{0};
  auto one = [&](CallContext& a) -> Status {
    attempts.fetch_add(1, std::memory_order_relaxed);
    grpc::ClientContext context;
    PrepareAttempt(a, clock.Now(), context, {.ask_sidecar_not_to_retry = o_.ask_sidecar_not_to_retry});
    // Runs at once when stop was already requested; gRPC then cancels the
    // call as soon as it starts.
    std::stop_callback cancel(a.stop, [&context] { context.TryCancel(); });
    const grpc::Status s = attempt(context);
    // The pipeline's retry and hedge clamp the pause to their own max_pushback.
    return FromGrpc(s, context.GetServerTrailingMetadata(), kInfiniteDuration);
  };
  result.status = o_.pipeline.Execute(call, one);
  result.attempts = attempts.load(std::memory_order_relaxed);
  grpc_internal::ReportToParent(call, result.status, parent);
  return result;
}

GrpcResult GrpcClient::RunOnReplicas(
    CallContext& parent, const CallOptions& options,
    FunctionRef<grpc::Status(grpc::ClientContext&, const std::shared_ptr<grpc::Channel>&)> attempt) const {
  if (!o_.replicas) return {.status = Status::FailedPrecondition("CallReplicas: the client has no replicas")};
  CallRouting routing(o_.replicas.get());
  Clock& clock = *o_.clock;
  return Run(parent, options, [&](grpc::ClientContext& c) -> grpc::Status {
    PickedEndpoint replica = routing.Pick(clock.Now());
    if (!replica) return {grpc::StatusCode::UNAVAILABLE, "no replica of the destination is known"};
    const grpc::Status s = attempt(c, channels_->For(replica.address()));
    routing.Report(replica, ClassifyGrpcStatus(s.error_code()), clock.Now());
    return s;
  });
}

}  // namespace stormguard::rpc
