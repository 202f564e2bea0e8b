// stormguard/grpc/server.h: the chain protocol around a sync gRPC service.
//
// ServerGuard::Serve wraps a handler of a sync service and, for every call:
//   - takes the caller's deadline (grpc-timeout, as gRPC read it), clamped to
//     the server's maximum so a caller can never extend it; a call without
//     one gets the server's default;
//   - keeps this hop's reserve (the time to answer) and refuses the call with
//     DEADLINE_EXCEEDED before the handler runs when nothing is left;
//   - hands the handler a CallContext: that deadline, a stop that fires at
//     the deadline or when the client cancels (a sync handler gets no notice
//     of that, so the guard asks ServerContext::IsCancelled every
//     cancel_poll_interval while the handler runs), the retry flag and the
//     idempotency key, installed as CurrentCallContext() so the handler's
//     own GrpcClient and HttpClient calls inherit it;
//   - runs inside the options' pipeline, when given, whose guards shed load;
//   - answers grpc-retry-pushback-ms: -1 when a downstream call gave up or
//     the call was shed, so no layer above retries it again (plain gRPC
//     clients with a retryPolicy stop too); a shed with a pause answers
//     RESOURCE_EXHAUSTED and the pause instead.
//
//   auto guard = ServerGuard::Create({}).value();
//   // in the service:
//   grpc::Status Say(grpc::ServerContext* c, const Req* req, Reply* out) override {
//     return guard->Serve(*c, [&](CallContext& ctx) { ...; return grpc::Status::OK; });
//   }
//
// Thread safety: one ServerGuard serves all of the server's threads; it must
// outlive the server.
#pragma once

#include <grpcpp/server_context.h>

#include <atomic>
#include <memory>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/function_ref.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/pipeline/pipeline.h"
#include "stormguard/wire/propagation.h"

namespace stormguard::grpc {

struct ServerGuardOptions {
  ServerLimits limits;                     // default and maximum budget per call
  HopReserve reserve{.fraction = 0.1};     // kept from the handler's deadline
  // Optional load shedding: a stage's refusal sheds the call before the
  // handler runs. A server runs each call once: no retry or hedge stage.
  std::shared_ptr<const Pipeline> pipeline;
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
};

using SyncHandler = FunctionRef<::grpc::Status(CallContext&)>;

class ServerGuard {
 public:
  static Result<std::unique_ptr<ServerGuard>> Create(ServerGuardOptions options);

  ::grpc::Status Serve(::grpc::ServerContextBase& context, SyncHandler handler);

  ServerGuardStats stats() const noexcept;

 private:
  explicit ServerGuard(ServerGuardOptions o) : o_(std::move(o)) {}
  ::grpc::Status Run(::grpc::ServerContextBase& context, SyncHandler handler, CallContext& ctx);
  ::grpc::Status Shed(::grpc::ServerContextBase& context, const Status& refusal);

  ServerGuardOptions o_;
  struct Counters {
    std::atomic<std::uint64_t> served{0}, expired_refused{0}, clamped{0}, shed{0}, marked_no_retry{0},
        client_cancelled{0};
  } counters_;
};

}  // namespace stormguard::grpc
