#include "stormguard/grpc/server.h"

#include <chrono>
#include <optional>
#include <string>

#include "stormguard/core/validation.h"
#include "stormguard/exec/stop_poller.h"
#include "stormguard/grpc/chain_metadata.h"
#include "stormguard/grpc/status_map.h"
#include "stormguard/pipeline/server_pipeline.h"

namespace stormguard::rpc {
namespace {

void MarkDoNotRetry(grpc::ServerContextBase& context) {
  context.AddTrailingMetadata(std::string(kPushbackKey), std::string(kGrpcPushbackStopValue));
}

}  // namespace

std::vector<std::string> ServerGuardOptions::Validate() const {
  Validator v;
  v.Nest("limits", limits.Validate());
  v.CheckRange(reserve.fraction, "reserve.fraction", Range{0.0, 1.0, false, true});
  v.Check(reserve.overhead >= Duration::zero(), "reserve.overhead", "must not be negative");
  v.Check(clock != nullptr, "clock", "must not be null");
  v.Check(cancel_poll_interval > Duration::zero() && cancel_poll_interval <= std::chrono::seconds(1),
          "cancel_poll_interval", "must be in (0, 1s]");
  v.Nest("pipeline", ServerPipelineErrors(pipeline, "call"));
  return std::move(v).errors();
}

Result<std::unique_ptr<ServerGuard>> ServerGuard::Create(ServerGuardOptions options) {
  Status s = ValidationStatus("server guard options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<ServerGuard>(new ServerGuard(std::move(options)));
}

std::optional<grpc::Status> ServerGuard::Admit(grpc::ServerContextBase& context, CallContext& ctx) {
  counters_.served.fetch_add(1, std::memory_order_relaxed);
  const TimePoint now = o_.clock->Now();
  Duration budget = RemainingOf(context);
  if (budget == kInfiniteDuration) budget = o_.limits.default_budget;
  if (budget > o_.limits.max_budget) {
    counters_.clamped.fetch_add(1, std::memory_order_relaxed);
    budget = o_.limits.max_budget;
  }
  ctx.deadline = Deadline::After(now, budget).ForNextHop(now, o_.reserve);
  if (ctx.deadline.Expired(now)) {
    counters_.expired_refused.fetch_add(1, std::memory_order_relaxed);
    MarkDoNotRetry(context);
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline already spent on arrival");
  }
  const std::size_t max_key = o_.limits.max_idempotency_key_length;
  IncomingChain in = ReadIncomingChain(context.client_metadata(), max_key);
  if (in.unreadable_key) {
    // Run without it, the call's retries could each take effect, here or
    // below (the key goes on with the handler's own calls).
    counters_.invalid_keys.fetch_add(1, std::memory_order_relaxed);
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(kIdempotencyKey) +
                                                                ": must be sent once, 1 to " + std::to_string(max_key) +
                                                                " printable ASCII characters");
  }
  ctx.incoming_is_retry = in.is_retry;
  ctx.idempotency_key = std::move(in.idempotency_key);
  return std::nullopt;
}

grpc::Status ServerGuard::Serve(grpc::ServerContextBase& context, SyncHandler handler) {
  CallContext ctx;
  if (std::optional<grpc::Status> refused = Admit(context, ctx)) return *refused;
  return Guarded(context, ctx, [&](CallContext& c) { return Run(context, handler, c); });
}

grpc::Status ServerGuard::Guarded(grpc::ServerContextBase& context, CallContext& ctx, SyncHandler body) {
  PipelineRef pinned;
  const Pipeline* pipeline = PipelineFor(pinned);
  if (pipeline == nullptr) return body(ctx);
  std::optional<grpc::Status> answer;
  const Status s = pipeline->Execute(ctx, [&](CallContext& c) {
    answer = body(c);
    return FromGrpc(*answer, {}, Duration::zero());
  });
  return answer ? *answer : Shed(context, s);
}

const Pipeline* ServerGuard::PipelineFor(PipelineRef& pinned) {
  bool misconfigured = false;
  const Pipeline* p = ServerPipelineFor(o_.pipeline, pinned, misconfigured);
  if (misconfigured) counters_.misconfigured.fetch_add(1, std::memory_order_relaxed);
  return p;
}

// A guard of the pipeline refused the call before it ran.
grpc::Status ServerGuard::Shed(grpc::ServerContextBase& context, const Status& refusal) {
  counters_.shed.fetch_add(1, std::memory_order_relaxed);
  const RetryHints& h = refusal.hints();
  if (refusal.code() == StatusCode::kResourceExhausted && h.pushback) {
    context.AddTrailingMetadata(std::string(kPushbackKey), EncodeGrpcPushback(*h.pushback).str());
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, refusal.ToString()};
  }
  counters_.marked_no_retry.fetch_add(1, std::memory_order_relaxed);
  MarkDoNotRetry(context);
  return {ToGrpcCode(refusal.code()), refusal.ToString()};
}

// Runs the handler under the call's context, stopped at its deadline or when
// the client cancels.
grpc::Status ServerGuard::Run(grpc::ServerContextBase& context, SyncHandler handler, CallContext& ctx) {
  std::stop_source stop;
  ctx.stop = stop.get_token();
  TimerService& timers = o_.timers != nullptr ? *o_.timers : TimerService::Default();
  grpc::Status status;
  {
    ScopedTimer stop_at_deadline(timers, ctx.deadline.time(), stop);
    // A sync handler gets no notice of the client's cancellation: ask.
    const auto cancelled = [&context] { return context.IsCancelled(); };
    StopPoller client_gone(timers, o_.cancel_poll_interval, cancelled, stop);
    ScopedCallContext scope(ctx);
    try {
      status = handler(ctx);
    } catch (const std::exception& e) {
      status = {grpc::StatusCode::UNKNOWN, std::string("handler threw: ") + e.what()};
    } catch (...) {
      status = {grpc::StatusCode::UNKNOWN, "handler threw"};
    }
    if (client_gone.Stop()) counters_.client_cancelled.fetch_add(1, std::memory_order_relaxed);
  }
  return PassOn(context, ctx, std::move(status));
}

// A failure after a downstream call gave up tells the layers above not to
// retry it either.
grpc::Status ServerGuard::PassOn(grpc::ServerContextBase& context, const CallContext& ctx, grpc::Status status) {
  if (ctx.downstream_gave_up && !status.ok()) {
    counters_.marked_no_retry.fetch_add(1, std::memory_order_relaxed);
    MarkDoNotRetry(context);
  }
  return status;
}

ServerGuardStats ServerGuard::stats() const noexcept {
  const auto get = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return {get(counters_.served),       get(counters_.expired_refused), get(counters_.clamped),
          get(counters_.shed),         get(counters_.marked_no_retry), get(counters_.client_cancelled),
          get(counters_.invalid_keys), get(counters_.misconfigured)};
}

}  // namespace stormguard::rpc
