// The callback half of GuardedMethod: the original handler runs inside
// ServerGuard::ServeCallback. The GuardedReactor that ServeCallback returns
// answers on a CallbackRoute, which carries its answer to gRPC's call: the
// method's own reactor's answer, held back by the AnswerTap until the guard
// has judged it, or, when the guard answered alone (refused, shed, a keyed
// repeat), one sent through the original handler without running the method.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "answer_tap.h"
#include "guarded_method.h"
#include "stormguard/exec/timer_service.h"

namespace stormguard::rpc::grpc_internal {
namespace {

class CallbackRoute final : public grpc::ServerCallbackUnary, public AnswerTap {
 public:
  CallbackRoute(grpc::internal::MethodHandler& inner, const grpc::internal::MethodHandler::HandlerParameter& param,
                std::unique_ptr<google::protobuf::Message> record)
      : AnswerTap(*param.call),
        inner_(inner),
        context_(*param.server_context),
        request_(param.request),
        internal_data_(param.internal_data),
        call_requester_(param.call_requester),
        record_(std::move(record)) {}

  // Serves the call; `this` deletes itself once the guard's answer left.
  void Start(ServerGuard& guard, grpc::CallbackServerContext& context, const google::protobuf::Message& request,
             TimerService& timers, Duration cancel_poll_interval) {
    timers_ = &timers;
    poll_interval_ = cancel_poll_interval;
    CallbackHandler handler = [this](CallContext&, ServerAnswer answer) {
      refs_.fetch_add(1, std::memory_order_relaxed);  // the method may answer, and the guard finish, meanwhile
      method_answer_.emplace(std::move(answer));
      RunInner(grpc::Status::OK);  // the method runs; its reactor answers through the tap
      {
        std::lock_guard lock(poll_mu_);
        if (!answered_) ArmPoll();
      }
      Release();
    };
    grpc::ServerUnaryReactor* reactor = record_ != nullptr
                                            ? guard.ServeCallback(context, request, *record_, std::move(handler))
                                            : guard.ServeCallback(context, std::move(handler));
    reactor_.store(reactor, std::memory_order_release);
    BindReactor(reactor);  // runs a Finish the guard already wanted
    Release();
  }

  // The guard's answer.
  void Finish(grpc::Status status) override {
    bool disarmed = false;
    {
      std::lock_guard lock(poll_mu_);
      answered_ = true;  // before the answer leaves: the context goes with the call
      disarmed = poll_.armed() && TimerService::TryCancel(poll_);
    }
    if (disarmed) Release();  // the poll's; never the last
    if (held_) {
      held_->Replace(status, nullptr);  // the method's, with what the guard made of it
      held_->Send();
    } else {
      guard_answer_ = std::move(status);
      RunInner(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, ""));  // gRPC skips the method
    }
    Release();
  }
  // The guard's reactor sends no initial metadata of its own.
  void SendInitialMetadata() override {}

 private:
  // gRPC tells only the method's reactor of the client's cancellation, so
  // the guard's asks, every poll interval, as Serve's sync handlers do; from
  // when the method started (gRPC can tell no earlier) until the guard
  // answered. Under poll_mu_; an armed poll holds a reference.
  void ArmPoll() {
    refs_.fetch_add(1, std::memory_order_relaxed);
    poll_ = timers_->Schedule(timers_->clock().Now() + poll_interval_, &Poll, this);
    if (!poll_.armed()) refs_.fetch_sub(1, std::memory_order_relaxed);  // never the last: the caller holds one
  }

  static void Poll(void* self) noexcept {
    auto* route = static_cast<CallbackRoute*>(self);
    bool cancelled = false;
    {
      std::lock_guard lock(route->poll_mu_);
      if (!route->answered_) {
        cancelled = route->context_.IsCancelled();
        if (!cancelled) route->ArmPoll();
      }
    }
    if (cancelled) route->reactor_.load(std::memory_order_acquire)->OnCancel();
    route->Release();  // this firing's
  }

  void RunInner(grpc::Status status) {
    tapped_ = Tapped();
    inner_.RunHandler(grpc::internal::MethodHandler::HandlerParameter(&tapped_, &context_, request_, std::move(status),
                                                                      internal_data_, call_requester_));
  }

  void OnAnswer(PendingAnswer answer) override {
    if (guard_answer_) {  // the guard's own answer, with the recorded reply of a keyed repeat
      answer.Replace(*guard_answer_, guard_answer_->ok() ? record_.get() : nullptr);
      return answer.Send();
    }
    const grpc::Status status = answer.status();
    const google::protobuf::MessageLite* reply = answer.reply();
    if (record_ != nullptr && reply != nullptr) record_->CheckTypeAndMergeFrom(*reply);
    held_.emplace(std::move(answer));
    refs_.fetch_add(1, std::memory_order_relaxed);  // the guard may finish on this thread
    ServerAnswer to_guard = std::move(*method_answer_);
    method_answer_.reset();
    to_guard(status);
    Release();
  }

  void Release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    reactor_.load(std::memory_order_acquire)->OnDone();
    delete this;
  }

  // ServerCallbackCall's: gRPC never runs this call, the guard's reactor only.
  grpc::internal::ServerReactor* reactor() override { return reactor_.load(std::memory_order_acquire); }
  void CallOnDone() override {}

  grpc::internal::MethodHandler& inner_;
  grpc::ServerContextBase& context_;
  void* const request_;
  void* const internal_data_;
  const std::function<void()> call_requester_;
  const std::unique_ptr<google::protobuf::Message> record_;  // a keyed call's reply, or null
  grpc::internal::Call tapped_;
  std::atomic<grpc::ServerUnaryReactor*> reactor_{nullptr};
  std::atomic<int> refs_{2};                   // Start's, and the guard's answer's
  std::optional<ServerAnswer> method_answer_;  // until the method answers
  std::optional<PendingAnswer> held_;          // the method's answer, until the guard judged it
  std::optional<grpc::Status> guard_answer_;   // the guard answered alone
  TimerService* timers_ = nullptr;
  Duration poll_interval_{};
  std::mutex poll_mu_;
  TimerHandle poll_;       // guarded by poll_mu_
  bool answered_ = false;  // guarded by poll_mu_
};

}  // namespace

void GuardedMethod::RunCallback(const HandlerParameter& param, grpc::CallbackServerContext& context,
                                const google::protobuf::Message& request) {
  const bool keyed = guard_.o_.idempotency != nullptr;
  auto* route = new CallbackRoute(*inner_, param,
                                  keyed ? std::unique_ptr<google::protobuf::Message>(reply_type_.New()) : nullptr);
  TimerService& timers = guard_.o_.timers != nullptr ? *guard_.o_.timers : TimerService::Default();
  route->Start(guard_, context, request, timers, guard_.o_.cancel_poll_interval);
}

}  // namespace stormguard::rpc::grpc_internal
