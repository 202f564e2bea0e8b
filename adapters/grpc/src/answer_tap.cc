#include "answer_tap.h"

#include <grpcpp/impl/codegen/proto_utils.h>

#include "grpc_internals.h"

namespace stormguard::rpc::grpc_internal {

PendingAnswer::PendingAnswer(grpc::internal::Call real, grpc::internal::CallOpSetInterface& ops,
                             std::unique_ptr<grpc::internal::InterceptorBatchMethodsImpl> view)
    : real_(real), ops_(&ops), view_(std::move(view)) {}

grpc::Status PendingAnswer::status() { return view_->GetSendStatus(); }

const google::protobuf::MessageLite* PendingAnswer::reply() {
  if (!view_->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_MESSAGE)) {
    return nullptr;
  }
  // Generated handlers send their reply as a MessageLite (or as the
  // generated type, which derives from it alone: the same address).
  return static_cast<const google::protobuf::MessageLite*>(view_->GetSendMessage());
}

void PendingAnswer::Replace(const grpc::Status& status, const google::protobuf::MessageLite* reply) {
  auto* message = reply != nullptr ? dynamic_cast<grpc::internal::CallOpSendMessage*>(ops_) : nullptr;
  if (message != nullptr) {
    const grpc::Status queued = message->SendMessagePtr(reply);  // serialized when sent
    if (!queued.ok()) return view_->ModifySendStatus(queued);
  }
  view_->ModifySendStatus(status);
}

void PendingAnswer::Send() { real_.PerformOps(ops_); }

void AnswerTap::PerformOpsOnCall(grpc::internal::CallOpSetInterface* ops, grpc::internal::Call* /*call*/) {
  auto view = std::make_unique<grpc::internal::InterceptorBatchMethodsImpl>();
  if (!PeekAnswer(*ops, *view)) {
    grpc::internal::Call real = real_;
    return real.PerformOps(ops);  // initial metadata: nothing to see
  }
  OnAnswer(PendingAnswer(real_, *ops, std::move(view)));
}

}  // namespace stormguard::rpc::grpc_internal
