// stormguard/grpc/server.h: the chain protocol around a gRPC service.
//
// One line guards a whole generated service, sync or callback:
//
//   auto guard = ServerGuard::Create({}).value();
//   builder.RegisterService(guard->Wrap(&service));
//
// Wrap puts every unary method of the service inside the guard, which, for
// every call:
//   - takes the caller's deadline (grpc-timeout, as gRPC read it), clamped to
//     the server's maximum so a caller can never extend it (one centuries
//     away too); a call without one gets the server's default;
//   - keeps this hop's reserve (the time to answer) and refuses the call with
//     DEADLINE_EXCEEDED before the method runs when nothing is left;
//   - refuses with INVALID_ARGUMENT, before the method runs, a call whose
//     idempotency key it cannot read exactly (empty, repeated, too long, not
//     printable ASCII): run as if it carried none, the call's retries could
//     each take effect, whoever deduplicates them (the guard's store, the
//     method, a service below that the key would have gone on to);
//   - gives the method a CallContext, CurrentCallContext() while it runs:
//     that deadline, a stop that fires at the deadline or when the client
//     cancels (gRPC tells only the method of that, so the guard asks
//     ServerContext::IsCancelled every cancel_poll_interval), the retry flag
//     and the idempotency key; the method's own GrpcClient and HttpClient
//     calls inherit it. A callback method keeps the pointer: the context
//     lives until its reactor finishes. (A keyed repeat that waits for its
//     first in a callback service ends at its deadline or with the first's
//     answer: gRPC tells of a cancellation only once a method runs);
//   - runs inside the options' pipeline, when given, whose guards shed load
//     before the method runs;
//   - answers grpc-retry-pushback-ms: -1 when a downstream call gave up or
//     the call was shed, so no layer above retries it again (plain gRPC
//     clients with a retryPolicy stop too); a shed with a pause answers
//     RESOURCE_EXHAUSTED and the pause instead;
//   - with an idempotency store, runs a call that carries an idempotency key
//     at most once (see Serve below).
// Streaming methods, and async, raw and generic ones, pass through
// untouched. Call Wrap before RegisterService, and after any
// SetMessageAllocatorFor_ (which would cast the guard's handler).
//
// Why a wrapped handler: gRPC 1.51 has no public hook that both runs before
// a method (a server interceptor can neither refuse a call nor keep the
// method from running, and cannot shorten the deadline the method sees) and
// sees its answer before it leaves (for the pushback mark and the keyed
// record). Wrap replaces each unary method's gRPC MethodHandler with one
// that calls the original inside the guard and lets it answer through a Call
// whose hook shows the guard the answer first; src/grpc_internals.h holds
// the few gRPC internals that takes, and the tests fail if an upgrade moves
// them.
//
// ServerGuard::Serve guards one handler of a sync service by hand:
//
//   grpc::Status Say(grpc::ServerContext* c, const Req* req, Reply* out) override {
//     return guard->Serve(*c, [&](CallContext& ctx) { ...; return grpc::Status::OK; });
//   }
//
// ServerGuard::ServeCallback does the same for a callback service
// (grpc::CallbackServerContext, ServerUnaryReactor), without a thread per
// call: the stop fires from a timer at the deadline and from the reactor's
// OnCancel, the pipeline runs under its completion driver (its stages need
// an asynchronous form; a guard's permit is held until the answer), and the
// handler answers through a ServerAnswer, once, from any thread (the call
// ends with that answer: a timeout stage in the pipeline fires ctx.stop and
// waits for it, as the completion driver waits for every attempt):
//
//   grpc::ServerUnaryReactor* Say(grpc::CallbackServerContext* c, const Req* req, Reply* out) override {
//     return guard->ServeCallback(*c, [=](CallContext& ctx, ServerAnswer answer) {
//       ...; answer(grpc::Status::OK);  // ctx lives until then
//     });
//   }
//
// Thread safety: one ServerGuard serves all of the server's threads; it must
// outlive the server.
#pragma once

#include <grpcpp/impl/service_type.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/function_ref.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/pipeline/pipeline_ref.h"
#include "stormguard/wire/keyed_answer_store.h"
#include "stormguard/wire/propagation.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace stormguard::rpc {

struct ServerGuardOptions {
  ServerLimits limits;                  // default and maximum budget per call
  HopReserve reserve{.fraction = 0.1};  // kept from the handler's deadline
  // Optional load shedding: a stage's refusal sheds the call before the
  // handler runs. A server runs each call once: no retry or hedge stage.
  // Fixed, or live (registry.Follow("inbound")) to follow every reload; a
  // reload that brings a retry or hedge is not applied to calls (each runs
  // unguarded, counted in ServerGuardStats::misconfigured) until fixed.
  PipelineRef pipeline;
  // Optional, not owned: runs keyed calls served with their messages at
  // most once. One store may serve several guards (and HTTP servers).
  KeyedAnswerStore* idempotency = nullptr;
  // Tells callers apart, so that one caller's key never answers another's
  // call: e.g. the authenticated peer identity. Empty: one key space.
  std::function<std::string(const grpc::ServerContextBase&)> caller_identity;
  Clock* clock = &Clock::Real();
  // Fires ctx.stop at each call's deadline and runs the cancellation
  // checks; must run on `clock`. nullptr: TimerService::Default() (the real clock).
  TimerService* timers = nullptr;
  // How soon a handler's stop follows the client's cancellation, at most.
  Duration cancel_poll_interval = std::chrono::milliseconds(5);

  std::vector<std::string> Validate() const;
};

struct ServerGuardStats {
  std::uint64_t served = 0;
  std::uint64_t expired_refused = 0;   // nothing left on arrival: the handler never ran
  std::uint64_t clamped = 0;           // the caller granted more than max_budget
  std::uint64_t shed = 0;              // refused by the pipeline's guards
  std::uint64_t marked_no_retry = 0;   // answers that carried pushback -1
  std::uint64_t client_cancelled = 0;  // stops fired by the client's cancellation
  std::uint64_t invalid_keys = 0;      // idempotency keys refused unread: the handler never ran
  std::uint64_t misconfigured = 0;     // run unguarded: a reload gave the pipeline a retry or hedge
};

using SyncHandler = FunctionRef<grpc::Status(CallContext&)>;

namespace grpc_internal {
class GuardedReactor;
class GuardedMethod;
}  // namespace grpc_internal

// A callback handler's answer: call it once, from any thread. Dropped
// unanswered, it answers INTERNAL (UNKNOWN when the handler threw).
class ServerAnswer {
 public:
  ServerAnswer(ServerAnswer&& o) noexcept;
  ServerAnswer& operator=(ServerAnswer&&) = delete;
  ~ServerAnswer();

  void operator()(const grpc::Status& status);

 private:
  friend class grpc_internal::GuardedReactor;
  ServerAnswer(grpc_internal::GuardedReactor& reactor, Completion<Status> done) noexcept;

  grpc_internal::GuardedReactor* reactor_;
  Completion<Status> done_;
  int unwinding_;
};

using CallbackHandler = std::function<void(CallContext&, ServerAnswer)>;

class ServerGuard {
 public:
  static Result<std::unique_ptr<ServerGuard>> Create(ServerGuardOptions options);

  grpc::Status Serve(grpc::ServerContextBase& context, SyncHandler handler);
  // The same, for a handler that fills `reply`: with options.idempotency, a
  // call carrying an idempotency key runs the handler at most once per
  // (caller, request type, reply type, key):
  //   - a repeat after the first finished gets its recorded code, message
  //     and reply, and the handler does not run;
  //   - a repeat while the first runs waits for it, up to its own deadline
  //     (then DEADLINE_EXCEEDED; UNAVAILABLE when the first failed and its
  //     key was forgotten): a keyed call retries both;
  //   - the key reused with another request (its deterministic serialization
  //     differs) answers INVALID_ARGUMENT: the request is wrong whatever the
  //     server's state, which FAILED_PRECONDITION would suggest could change.
  //     (A key the guard cannot read exactly never gets here: see above.)
  // Only OK and the caller's own errors (INVALID_ARGUMENT, NOT_FOUND,
  // ALREADY_EXISTS, PERMISSION_DENIED, FAILED_PRECONDITION, OUT_OF_RANGE,
  // UNAUTHENTICATED; HTTP's 4xx) are recorded: they would answer the same
  // again. Any other failure may have come before the effect and may pass
  // (UNAVAILABLE, DEADLINE_EXCEEDED, ...): the key is forgotten so that a
  // retry runs. Trailing metadata the handler adds is not recorded.
  grpc::Status Serve(grpc::ServerContextBase& context, const google::protobuf::Message& request,
                     google::protobuf::Message& reply, SyncHandler handler);
  // Returns the reactor for the service method to return.
  grpc::ServerUnaryReactor* ServeCallback(grpc::CallbackServerContext& context, CallbackHandler handler);
  // The same, for a handler that fills `reply`, with keyed calls run at most
  // once exactly as Serve above runs them. A repeat that finds the first
  // running waits without a thread: the store calls it back when the first
  // answers, and its own deadline or the client's cancellation ends the wait.
  grpc::ServerUnaryReactor* ServeCallback(grpc::CallbackServerContext& context,
                                          const google::protobuf::Message& request, google::protobuf::Message& reply,
                                          CallbackHandler handler);

  // Guards every unary method of a generated service in place (see above)
  // and returns it, for RegisterService. Wrapping twice changes nothing.
  grpc::Service* Wrap(grpc::Service* service);

  ServerGuardStats stats() const noexcept;

 private:
  friend class grpc_internal::GuardedReactor;
  friend class grpc_internal::GuardedMethod;
  explicit ServerGuard(ServerGuardOptions o) : o_(std::move(o)) {}
  // The call's context, or the answer that refuses it before the handler.
  std::optional<grpc::Status> Admit(grpc::ServerContextBase& context, CallContext& ctx);
  // Runs `body` inside the options' pipeline, when there is one.
  grpc::Status Guarded(grpc::ServerContextBase& context, CallContext& ctx, SyncHandler body);
  grpc::Status Run(grpc::ServerContextBase& context, SyncHandler handler, CallContext& ctx);
  grpc::Status ServeKeyed(grpc::ServerContextBase& context, const google::protobuf::Message& request,
                          google::protobuf::Message& reply, SyncHandler handler, CallContext& ctx);
  std::string CallerOf(const grpc::ServerContextBase& context) const;
  grpc::Status Shed(grpc::ServerContextBase& context, const Status& refusal);
  // The pipeline for one call (ServerPipelineFor), null: none.
  const Pipeline* PipelineFor(PipelineRef& pinned);
  grpc::Status PassOn(grpc::ServerContextBase& context, const CallContext& ctx, grpc::Status status);

  ServerGuardOptions o_;
  struct Counters {
    std::atomic<std::uint64_t> served{0}, expired_refused{0}, clamped{0}, shed{0}, marked_no_retry{0},
        client_cancelled{0}, invalid_keys{0}, misconfigured{0};
  } counters_;
};

}  // namespace stormguard::rpc
