// stormguard/grpc/callback_client.h: unary calls of a generated stub's
// callback API through a pipeline, without a thread waiting on any of them.
//
// The same chain duties as GrpcClient (client.h): a fresh ClientContext per
// attempt with the attempt's deadline and chain metadata, the trailers'
// grpc-retry-pushback-ms read back, the parent's downstream_gave_up set on a
// "do not retry" answer. The pipeline runs under its completion driver
// (Pipeline::ExecuteAsync): a retry's pause is a timer, and a hedge stage's
// attempts really run at once; when one wins (or the call's stop fires) the
// others' stops cancel them with ClientContext::TryCancel, so their servers
// see the cancellation.
//
//   auto client = GrpcCallbackClient::Create({.pipeline = pipeline}).value();
//   client.Call<EchoReply>(parent,
//       [&](grpc::ClientContext* c, EchoReply* out, std::function<void(grpc::Status)> cb) {
//         stub->async()->Say(c, &request, out, std::move(cb));  // request outlives the call
//       },
//       [](GrpcResult r, EchoReply reply) { ... });
//
// `start` is called once per attempt, on whichever thread runs it (the
// caller's, a timer's, gRPC's); it must start the call and return, and gRPC
// then calls `cb` exactly once. `done(GrpcResult, Response)` is called once,
// on the thread that ended the call (the reply is default-constructed
// unless the call succeeded). `parent` must live until `done` is called.
//
// Thread safety: one GrpcCallbackClient may be used from any number of threads.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/support/status.h>

#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <stop_token>
#include <utility>

#include "stormguard/fleet/call_routing.h"
#include "stormguard/grpc/client.h"
#include "stormguard/grpc/internal/call_setup.h"
#include "stormguard/grpc/status_map.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::rpc {

namespace grpc_internal {

// One attempt in flight: owns its ClientContext and reply until gRPC's
// callback, which reports to the pipeline and frees it.
template <class Response>
class CallbackAttempt {
 public:
  CallbackAttempt(const CallContext& attempt, TimePoint now, const AttemptMetadataOptions& metadata,
                  Completion<Result<Response>> done)
      : done_(std::move(done)) {
    PrepareAttempt(attempt, now, context_, metadata);
    // Runs at once when the stop was already requested: gRPC then cancels
    // the call as soon as it starts.
    cancel_.emplace(attempt.stop, Canceller{&context_});
  }

  template <class Start>
  static void Launch(Start& start, const CallContext& attempt, TimePoint now, const AttemptMetadataOptions& metadata,
                     Completion<Result<Response>> done) {
    auto* self = new CallbackAttempt(attempt, now, metadata, std::move(done));
    try {
      // gRPC may call back before start returns: `self` is not touched after.
      start(&self->context_, &self->reply_, [self](grpc::Status s) { self->Finish(s); });
    } catch (...) {
      // Nothing was started (`start` must not throw after starting the call).
      Completion<Result<Response>> failed = std::move(self->done_);
      delete self;
      failed(Result<Response>(StatusFromException(std::current_exception())));
    }
  }

 private:
  struct Canceller {
    grpc::ClientContext* context;
    void operator()() const noexcept { context->TryCancel(); }
  };

  void Finish(const grpc::Status& grpc_status) {
    // Waits for a TryCancel running on another thread. None runs on this
    // one: gRPC never calls a unary callback inline (its tag is not inlineable).
    cancel_.reset();
    // The pipeline's retry and hedge clamp the pause to their own max_pushback.
    Status s = FromGrpc(grpc_status, context_.GetServerTrailingMetadata(), kInfiniteDuration);
    Result<Response> r = s.ok() ? Result<Response>(std::move(reply_)) : Result<Response>(std::move(s));
    Completion<Result<Response>> done = std::move(done_);
    delete this;  // gRPC is done with the context once it has called back
    done(std::move(r));
  }

  grpc::ClientContext context_;
  Response reply_;
  Completion<Result<Response>> done_;
  std::optional<std::stop_callback<Canceller>> cancel_;
};

}  // namespace grpc_internal

class GrpcCallbackClient {
 public:
  static Result<GrpcCallbackClient> Create(GrpcClientOptions options);

  template <class Response, class Start, class Done>
  void Call(CallContext& parent, Start start, Done done, const CallOptions& options = {}) const {
    auto* state = new CallState<Start, Done>{.start = std::move(start), .done = std::move(done), .parent = &parent};
    const Status refused = grpc_internal::MakeCallContext(o_, parent, options, state->call);
    if (!refused.ok()) return Answer(state, refused, Response());
    Clock* clock = o_.clock;
    const AttemptMetadataOptions metadata{.ask_sidecar_not_to_retry = o_.ask_sidecar_not_to_retry};
    o_.pipeline.ExecuteAsync<Result<Response>>(
        state->call,
        [state, clock, metadata](CallContext& a, Completion<Result<Response>> c) {
          state->attempts.fetch_add(1, std::memory_order_relaxed);
          grpc_internal::CallbackAttempt<Response>::Launch(state->start, a, clock->Now(), metadata, std::move(c));
        },
        [state](Result<Response> r) {
          if (r.ok()) return Answer(state, Status::Ok(), std::move(r).value());
          Answer(state, r.status(), Response());
        });
  }

  // Each attempt on a replica of GrpcClientOptions::replicas, as
  // GrpcClient::CallReplicas: `start(context, channel, reply, cb)` starts
  // the call on the picked replica's channel. An empty set fails the
  // attempt UNAVAILABLE; a client without replicas refuses the call.
  template <class Response, class Start, class Done>
  void CallReplicas(CallContext& parent, Start start, Done done, const CallOptions& options = {}) const {
    if (!o_.replicas) {
      done(GrpcResult{.status = Status::FailedPrecondition("CallReplicas: the client has no replicas")}, Response());
      return;
    }
    auto routing = std::make_shared<CallRouting>(o_.replicas.get());
    auto on_replica = [start = std::move(start), routing, channels = channels_,
                       clock = o_.clock](grpc::ClientContext* c, Response* out,
                                         std::function<void(grpc::Status)> cb) mutable {
      auto replica = std::make_shared<PickedEndpoint>(routing->Pick(clock->Now()));
      if (!*replica) return cb(grpc::Status(grpc::StatusCode::UNAVAILABLE, "no replica of the destination is known"));
      start(c, channels->For(replica->address()), out, [cb = std::move(cb), replica, routing, clock](grpc::Status s) {
        routing->Report(*replica, ClassifyGrpcStatus(s.error_code()), clock->Now());
        cb(std::move(s));
      });
    };
    Call<Response>(parent, std::move(on_replica), std::move(done), options);
  }

 private:
  template <class Start, class Done>
  struct CallState {
    Start start;
    Done done;
    CallContext* parent;
    CallContext call{};
    std::atomic<int> attempts{0};
  };

  template <class Start, class Done, class Response>
  static void Answer(CallState<Start, Done>* state, const Status& status, Response reply) {
    grpc_internal::ReportToParent(state->call, status, *state->parent);
    GrpcResult result{.status = status, .attempts = state->attempts.load(std::memory_order_relaxed)};
    Done done = std::move(state->done);
    delete state;
    done(std::move(result), std::move(reply));
  }

  explicit GrpcCallbackClient(GrpcClientOptions o) : o_(std::move(o)) {
    if (o_.replicas) channels_ = std::make_shared<ReplicaChannels>(*o_.replicas, o_.make_channel);
  }
  GrpcClientOptions o_;
  std::shared_ptr<ReplicaChannels> channels_;  // with replicas
};

}  // namespace stormguard::rpc
