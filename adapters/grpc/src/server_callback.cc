// ServerGuard::ServeCallback: the guard's duties for a callback service,
// carried by a reactor that lives from the call's start to gRPC's OnDone.
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <stop_token>
#include <utility>

#include "keyed_call.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/grpc/server.h"
#include "stormguard/grpc/status_map.h"

namespace stormguard::rpc {
namespace grpc_internal {

class GuardedReactor final : public grpc::ServerUnaryReactor {
 public:
  // `request` and `reply`: both null, or both the call's messages.
  GuardedReactor(ServerGuard& guard, grpc::CallbackServerContext& context, CallbackHandler handler,
                 const google::protobuf::Message* request, google::protobuf::Message* reply)
      : guard_(guard), context_(context), handler_(std::move(handler)), request_(request), reply_(reply) {}

  void Start() {
    if (std::optional<grpc::Status> refused = guard_.Admit(context_, ctx_)) return Finish(*refused);
    KeyedAnswerStore* store = guard_.o_.idempotency;
    if (store != nullptr && reply_ != nullptr && !ctx_.idempotency_key.empty()) {
      keyed_.emplace(*store, guard_.CallerOf(context_), ctx_.idempotency_key, *request_, *reply_);
    }
    ctx_.stop = stop_.get_token();
    TimerService& timers = guard_.o_.timers != nullptr ? *guard_.o_.timers : TimerService::Default();
    refs_.fetch_add(1, std::memory_order_relaxed);  // the timer's, dropped when it fires or is disarmed
    timer_ = timers.Schedule(ctx_.deadline.time(), &DeadlinePassed, this);
    if (!timer_.armed()) Unref();
    PipelineRef pinned;  // the call's frame keeps what it needs of the pipeline
    const Pipeline* guarded = guard_.PipelineFor(pinned);
    const Pipeline& pipeline = guarded != nullptr ? *guarded : NoStages();
    pipeline.ExecuteAsync(
        ctx_, [this](CallContext& c, Completion<Status> done) { Attempt(c, ServerAnswer(*this, std::move(done))); },
        [this](Status s) { Complete(s); });
  }

  // The call was answered: kept unless the pipeline already ended the call.
  void Answered(const grpc::Status& status) {
    // Recorded before the answer leaves, so a repeat that follows it finds it.
    if (first_) keyed_->Finish(status, guard_.o_.clock->Now());
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
    static const PipelineRef none = PipelineBuilder().Build().value();
    return *none.get();
  }

  // Inside the pipeline: a keyed call answers from the store or waits for
  // its first; any other runs the handler.
  void Attempt(CallContext& c, ServerAnswer answer) {
    if (keyed_) {
      const KeyedCall::Claim claim = keyed_->Begin(guard_.o_.clock->Now());
      if (claim.state == AnswerClaim::kRunning) return Wait(c, std::move(answer));
      if (claim.state != AnswerClaim::kFirst) return answer(claim.answer);
      first_ = true;
    }
    ScopedCallContext scope(c);
    handler_(c, std::move(answer));
  }

  // A repeat while its first runs: the store calls back when the first
  // answers; the attempt's stop (its deadline, the client's cancellation)
  // withdraws the watch. Whichever wins answers; the store decides.
  void Wait(const CallContext& c, ServerAnswer answer) {
    refs_.fetch_add(1, std::memory_order_relaxed);  // the first may end this call on its thread meanwhile
    waiting_.emplace(std::move(answer));
    wait_deadline_ = c.deadline;
    ticket_ = keyed_->store().Watch(keyed_->scope(), keyed_->fingerprint(), [this](std::optional<RecordedAnswer> done) {
      EndWait(keyed_->Waited(done, /*out_of_time=*/false));
    });
    if (ticket_ != 0) stop_waiting_.emplace(c.stop, StopWaiting{this});
    Unref();
  }

  struct StopWaiting {
    GuardedReactor* r;
    void operator()() const noexcept {
      if (!r->keyed_->store().Unwatch(r->keyed_->scope(), r->ticket_)) return;  // answered already
      if (r->wait_deadline_.Expired(r->guard_.o_.clock->Now())) {
        r->EndWait(r->keyed_->Waited(std::nullopt, /*out_of_time=*/true));
      } else {
        r->EndWait({grpc::StatusCode::CANCELLED, "cancelled while the first call with this idempotency key ran"});
      }
    }
  };

  void EndWait(const grpc::Status& status) {
    ServerAnswer answer(std::move(*waiting_));
    answer(status);
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
    std::optional<grpc::Status> answer;
    {
      std::lock_guard lock(mu_);
      finished_ = true;
      answer = std::move(answer_);
    }
    Finish(answer ? guard_.PassOn(context_, ctx_, std::move(*answer)) : guard_.Shed(context_, s));
  }

  ServerGuard& guard_;
  grpc::CallbackServerContext& context_;
  CallbackHandler handler_;
  const google::protobuf::Message* request_;
  google::protobuf::Message* reply_;
  std::optional<KeyedCall> keyed_;  // a call with a key and a store
  bool first_ = false;              // it claimed its key: its answer is recorded
  CallContext ctx_;
  std::stop_source stop_;
  TimerHandle timer_;
  std::atomic<int> refs_{1};  // gRPC's, dropped at OnDone
  std::mutex mu_;
  std::optional<grpc::Status> answer_;  // guarded by mu_
  bool finished_ = false;               // guarded by mu_
  // A repeat waiting for its first: the answer that ends the wait, the
  // store's ticket and the attempt's deadline, read by whichever side wins.
  std::optional<ServerAnswer> waiting_;
  std::uint64_t ticket_ = 0;
  Deadline wait_deadline_;
  // Last: destroyed first, while what it reads still exists.
  std::optional<std::stop_callback<StopWaiting>> stop_waiting_;
};

}  // namespace grpc_internal

ServerAnswer::ServerAnswer(grpc_internal::GuardedReactor& reactor, Completion<Status> done) noexcept
    : reactor_(&reactor), done_(std::move(done)), unwinding_(std::uncaught_exceptions()) {}

ServerAnswer::ServerAnswer(ServerAnswer&& o) noexcept
    : reactor_(std::exchange(o.reactor_, nullptr)), done_(std::move(o.done_)), unwinding_(o.unwinding_) {}

ServerAnswer::~ServerAnswer() {
  if (reactor_ == nullptr) return;
  if (std::uncaught_exceptions() > unwinding_) {
    (*this)(grpc::Status(grpc::StatusCode::UNKNOWN, "handler threw"));
  } else {
    (*this)(grpc::Status(grpc::StatusCode::INTERNAL, "handler dropped its answer"));
  }
}

void ServerAnswer::operator()(const grpc::Status& status) {
  grpc_internal::GuardedReactor* reactor = std::exchange(reactor_, nullptr);
  if (reactor == nullptr) return;
  reactor->Answered(status);
  // What the pipeline's guards judge; may end the call on this thread.
  done_(FromGrpc(status, {}, Duration::zero()));
}

grpc::ServerUnaryReactor* ServerGuard::ServeCallback(grpc::CallbackServerContext& context, CallbackHandler handler) {
  auto* reactor = new grpc_internal::GuardedReactor(*this, context, std::move(handler), nullptr, nullptr);
  reactor->Start();  // may finish the call already: gRPC calls OnDone only after we return
  return reactor;
}

grpc::ServerUnaryReactor* ServerGuard::ServeCallback(grpc::CallbackServerContext& context,
                                                     const google::protobuf::Message& request,
                                                     google::protobuf::Message& reply, CallbackHandler handler) {
  auto* reactor = new grpc_internal::GuardedReactor(*this, context, std::move(handler), &request, &reply);
  reactor->Start();
  return reactor;
}

}  // namespace stormguard::rpc
