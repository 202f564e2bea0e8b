// AnswerTap: the Call a wrapped method handler answers through, which shows
// each answer (status and reply) to the guard before it leaves, and lets the
// guard change it or hold it back (see grpc_internals.h for why).
#pragma once

#include <google/protobuf/message_lite.h>
#include <grpcpp/impl/call.h>
#include <grpcpp/impl/call_hook.h>
#include <grpcpp/impl/codegen/interceptor_common.h>

#include <map>
#include <memory>
#include <string>

namespace stormguard::rpc::grpc_internal {

// A unary call's answer, not yet passed on to gRPC. Its operations live
// until they are sent, so it may be kept and sent from another thread.
class PendingAnswer {
 public:
  // `view` points into `ops` (PeekAnswer).
  PendingAnswer(grpc::internal::Call real, grpc::internal::CallOpSetInterface& ops,
                std::unique_ptr<grpc::internal::InterceptorBatchMethodsImpl> view);

  grpc::Status status();
  // The reply about to be sent; null when there is none (a failure).
  const google::protobuf::MessageLite* reply();
  // Sends `status` instead, with `reply` (which must outlive Send) when given.
  void Replace(const grpc::Status& status, const google::protobuf::MessageLite* reply);
  std::multimap<std::string, std::string>& trailers() { return *view_->GetSendTrailingMetadata(); }
  // Passes the answer on to gRPC: once.
  void Send();

 private:
  grpc::internal::Call real_;
  grpc::internal::CallOpSetInterface* ops_;
  std::unique_ptr<grpc::internal::InterceptorBatchMethodsImpl> view_;
};

class AnswerTap : public grpc::internal::CallHook {
 public:
  explicit AnswerTap(const grpc::internal::Call& real) : real_(real) {}

  // The call to hand the wrapped handler in place of the real one.
  grpc::internal::Call Tapped() {
    return {real_.call(), this, real_.cq(), real_.max_receive_message_size(), real_.server_rpc_info()};
  }

  void PerformOpsOnCall(grpc::internal::CallOpSetInterface* ops, grpc::internal::Call* call) final;

 protected:
  ~AnswerTap() override = default;
  // The handler answered: send the answer, now or later.
  virtual void OnAnswer(PendingAnswer answer) = 0;

 private:
  const grpc::internal::Call real_;
};

}  // namespace stormguard::rpc::grpc_internal
