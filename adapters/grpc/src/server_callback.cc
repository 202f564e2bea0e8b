// ServerGuard::ServeCallback: the guard's duties for a callback service,
// carried by a reactor that lives from the call's start to gRPC's OnDone.
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>

#include "stormguard/exec/timer_service.h"
#include "stormguard/grpc/server.h"
#include "stormguard/grpc/status_map.h"

namespace stormguard::grpc {
namespace grpc_internal {

class GuardedReactor final : public ::grpc::ServerUnaryReactor {
 public:
  GuardedReactor(ServerGuard& guard, ::grpc::CallbackServerContext& context, CallbackHandler handler)
      : guard_(guard), context_(context), handler_(std::move(handler)) {}

  void Start() {
    if (std::optional<::grpc::Status> refused = guard_.Admit(context_, ctx_)) return Finish(*refused);
    ctx_.stop = stop_.get_token();
    TimerService& timers = guard_.o_.timers != nullptr ? *guard_.o_.timers : TimerService::Default();
    refs_.fetch_add(1, std::memory_order_relaxed);  // the timer's, dropped when it fires or is disarmed
    timer_ = timers.Schedule(ctx_.deadline.time(), &DeadlinePassed, this);
    if (!timer_.armed()) Unref();
    const Pipeline& pipeline = guard_.o_.pipeline != nullptr ? *guard_.o_.pipeline : NoStages();
    pipeline.ExecuteAsync(
        ctx_,
        [this](CallContext& c, Completion<Status> done) {
          ScopedCallContext scope(c);
          handler_(c, ServerAnswer(*this, std::move(done)));
        },
        [this](Status s) { Complete(s); });
  }

  // The handler answered: kept unless the pipeline already ended the call.
  void Answered(const ::grpc::Status& status) {
    std::lock_guard lock(mu_);
    if (!finished_) answer_ = status;
  }

  void OnCancel() override {
    {
      std::lock_guard lock(mu_);
      if (finished_) return;
    }
    guard_.counters_.client_cancelled.fetch_add(1, std::memory_order_relaxed);
    stop_.request_stop();
  }

  void OnDone() override {
    // A timer that is firing (possibly on this very thread) drops its own
    // reference: TryCancel never waits for it.
    if (timer_.armed() && TimerService::TryCancel(timer_)) Unref();
    Unref();
  }

 private:
  static const Pipeline& NoStages() {
    static const Pipeline none = PipelineBuilder().Build().value();
    return none;
  }

  static void DeadlinePassed(void* self) noexcept {
    auto* r = static_cast<GuardedReactor*>(self);
    r->stop_.request_stop();
    r->Unref();
  }

  void Unref() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // The pipeline ended the call: with the handler's answer, or refused.
  void Complete(const Status& s) {
    std::optional<::grpc::Status> answer;
    {
      std::lock_guard lock(mu_);
      finished_ = true;
      answer = std::move(answer_);
    }
    Finish(answer ? guard_.PassOn(context_, ctx_, std::move(*answer)) : guard_.Shed(context_, s));
  }

  ServerGuard& guard_;
  ::grpc::CallbackServerContext& context_;
  CallbackHandler handler_;
  CallContext ctx_;
  std::stop_source stop_;
  TimerHandle timer_;
  std::atomic<int> refs_{1};  // gRPC's, dropped at OnDone
  std::mutex mu_;
  std::optional<::grpc::Status> answer_;  // guarded by mu_
  bool finished_ = false;                 // guarded by mu_
};

}  // namespace grpc_internal

ServerAnswer::ServerAnswer(grpc_internal::GuardedReactor& reactor, Completion<Status> done) noexcept
    : reactor_(&reactor), done_(std::move(done)), unwinding_(std::uncaught_exceptions()) {}

ServerAnswer::ServerAnswer(ServerAnswer&& o) noexcept
    : reactor_(std::exchange(o.reactor_, nullptr)), done_(std::move(o.done_)), unwinding_(o.unwinding_) {}

ServerAnswer::~ServerAnswer() {
  if (reactor_ == nullptr) return;
  if (std::uncaught_exceptions() > unwinding_) {
    (*this)(::grpc::Status(::grpc::StatusCode::UNKNOWN, "handler threw"));
  } else {
    (*this)(::grpc::Status(::grpc::StatusCode::INTERNAL, "handler dropped its answer"));
  }
}

void ServerAnswer::operator()(const ::grpc::Status& status) {
  grpc_internal::GuardedReactor* reactor = std::exchange(reactor_, nullptr);
  if (reactor == nullptr) return;
  reactor->Answered(status);
  // What the pipeline's guards judge; may end the call on this thread.
  done_(FromGrpc(status, {}, Duration::zero()));
}

::grpc::ServerUnaryReactor* ServerGuard::ServeCallback(::grpc::CallbackServerContext& context,
                                                       CallbackHandler handler) {
  auto* reactor = new grpc_internal::GuardedReactor(*this, context, std::move(handler));
  reactor->Start();  // may finish the call already: gRPC calls OnDone only after we return
  return reactor;
}

}  // namespace stormguard::grpc
