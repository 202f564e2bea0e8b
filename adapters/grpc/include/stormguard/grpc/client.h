// stormguard/grpc/client.h: unary calls of a generated stub through a pipeline.
//
// Each attempt gets a fresh grpc::ClientContext (gRPC forbids reusing one)
// with the attempt's deadline and the chain metadata (chain_metadata.h); the
// server's trailers are read back, so grpc-retry-pushback-ms pauses or stops
// the pipeline's retry and hedge as Retry-After and x-no-retry do for HTTP.
// The context's stop cancels the attempt in flight (ClientContext::TryCancel).
// Inside a call served by ServerGuard (server.h), calls inherit that call's
// deadline, retry flag and stop without being told.
//
//   auto client = GrpcClient::Create({.pipeline = registry.Follow("inventory")}).value();
//   EchoReply reply;
//   GrpcResult r = client.Call(
//       [&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, request, out); }, &reply);
//
// Each attempt writes its own response message; the first success is moved
// into `*out`, so hedged attempts never share one. A call says whether it may
// run twice (CallOptions::idempotent); a call that may not and carries no
// key is never repeated after the server may have run it (see status_map.h).
// Keep gRPC from retrying underneath: give the channel no retryPolicy.
//
// Thread safety: one GrpcClient may be used from any number of threads.
#pragma once

#include <grpcpp/client_context.h>

#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <type_traits>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/function_ref.h"
#include "stormguard/grpc/chain_metadata.h"
#include "stormguard/grpc/replica_channels.h"
#include "stormguard/pipeline/pipeline_ref.h"

namespace stormguard::rpc {

struct GrpcClientOptions {
  // The policies of the destination (required): fixed, or live
  // (registry.Follow("inventory")) to follow every reload; each call runs on
  // the pipeline in force when it starts. A pipeline with no stages sends
  // each call once. Refused: a retry or hedge with `idempotent` set (each
  // call says whether it may repeat, CallOptions).
  PipelineRef pipeline;
  // The budget of a call made outside any served call and without a deadline.
  Duration default_timeout = std::chrono::seconds(2);
  // Kept from the parent's budget before it is handed down. ServerGuard has
  // already taken this hop's reserve from the context its handlers get, so
  // none by default; set one when calling from elsewhere (an HTTP handler).
  HopReserve reserve{};
  // Inside an Envoy / Istio mesh: send x-envoy-max-retries: 0 on every
  // attempt, so the local sidecar does not retry on top of this client's
  // pipeline (docs/chain-protocol.md, "Inside a mesh"). Off by default:
  // outside a mesh nothing reads it.
  bool ask_sidecar_not_to_retry = false;
  // The destination's replicas (registry.Replicas("inventory")), for
  // CallReplicas: each attempt goes to the channel of a replica the call
  // has not tried yet (a retry or a hedge goes elsewhere while one is
  // left). UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED count
  // against the replica (outlier_detection.h). Null: CallReplicas refuses.
  std::shared_ptr<ReplicaSet> replicas;
  // Makes a replica's channel, once per address (default: insecure).
  ChannelFactory make_channel = InsecureChannelTo;
  Clock* clock = &Clock::Real();  // of the deadlines; the pipeline's must be the same

  std::vector<std::string> Validate() const;
};

struct CallOptions {
  bool idempotent = false;        // may run twice with the effect of once
  std::string idempotency_key{};  // one logical operation across retries
};

struct GrpcResult {
  Status status;     // OK when an attempt succeeded
  int attempts = 0;  // attempts started

  bool ok() const noexcept { return status.ok(); }
};

// One attempt: issue the stub call on the given context, write the reply.
template <class Response>
using UnaryAttempt = FunctionRef<grpc::Status(grpc::ClientContext&, Response*)>;
// One attempt on a replica: make the stub on `channel`, then as above.
template <class Response>
using ReplicaAttempt =
    FunctionRef<grpc::Status(grpc::ClientContext&, const std::shared_ptr<grpc::Channel>& channel, Response*)>;

namespace grpc_internal {

// Moves the first successful attempt's reply into `out`: hedged attempts
// each write their own.
template <class Response>
struct FirstAnswer {
  Response* out;
  std::mutex mu{};
  bool answered = false;
  template <class Attempt>
  grpc::Status Take(grpc::ClientContext& c, Attempt&& attempt) {
    Response mine;
    grpc::Status s = attempt(c, &mine);
    if (s.ok()) {
      std::lock_guard lock(mu);
      if (!answered) *out = std::move(mine);
      answered = true;
    }
    return s;
  }
};

}  // namespace grpc_internal

class GrpcClient {
 public:
  static Result<GrpcClient> Create(GrpcClientOptions options);

  // Inherits CurrentCallContext() when there is one.
  template <class Response>
  GrpcResult Call(std::type_identity_t<UnaryAttempt<Response>> attempt, Response* out,
                  const CallOptions& options = {}) const {
    if (CallContext* current = CurrentCallContext()) return Call(*current, attempt, out, options);
    CallContext root;
    return Call(root, attempt, out, options);
  }

  // `parent` is the context of the work this call belongs to; when the call
  // gives up for the chain, parent.downstream_gave_up is set.
  template <class Response>
  GrpcResult Call(CallContext& parent, std::type_identity_t<UnaryAttempt<Response>> attempt, Response* out,
                  const CallOptions& options = {}) const {
    grpc_internal::FirstAnswer<Response> answer{out};
    return Run(parent, options, [&](grpc::ClientContext& c) { return answer.Take(c, attempt); });
  }

  // Each attempt on a replica of GrpcClientOptions::replicas:
  //   client.CallReplicas([&](grpc::ClientContext& c, const std::shared_ptr<grpc::Channel>& ch, Reply* out) {
  //     return Inventory::NewStub(ch)->Get(&c, request, out);
  //   }, &reply);
  // An empty set fails the attempt UNAVAILABLE.
  template <class Response>
  GrpcResult CallReplicas(std::type_identity_t<ReplicaAttempt<Response>> attempt, Response* out,
                          const CallOptions& options = {}) const {
    if (CallContext* current = CurrentCallContext()) return CallReplicas(*current, attempt, out, options);
    CallContext root;
    return CallReplicas(root, attempt, out, options);
  }
  template <class Response>
  GrpcResult CallReplicas(CallContext& parent, std::type_identity_t<ReplicaAttempt<Response>> attempt, Response* out,
                          const CallOptions& options = {}) const {
    grpc_internal::FirstAnswer<Response> answer{out};
    return RunOnReplicas(parent, options, [&](grpc::ClientContext& c, const std::shared_ptr<grpc::Channel>& ch) {
      return answer.Take(c, [&](grpc::ClientContext& cc, Response* r) { return attempt(cc, ch, r); });
    });
  }

 private:
  explicit GrpcClient(GrpcClientOptions o);
  GrpcResult Run(CallContext& parent, const CallOptions& options,
                 FunctionRef<grpc::Status(grpc::ClientContext&)> attempt) const;
  GrpcResult RunOnReplicas(
      CallContext& parent, const CallOptions& options,
      FunctionRef<grpc::Status(grpc::ClientContext&, const std::shared_ptr<grpc::Channel>&)> attempt) const;

  GrpcClientOptions o_;
  std::shared_ptr<ReplicaChannels> channels_;  // with replicas
};

}  // namespace stormguard::rpc
