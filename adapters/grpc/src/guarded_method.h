// GuardedMethod: the MethodHandler ServerGuard::Wrap puts in place of a
// unary method's own, which runs the original inside the guard.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/impl/rpc_service_method.h>

#include <memory>

#include "stormguard/grpc/server.h"

namespace stormguard::rpc::grpc_internal {

class GuardedMethod final : public grpc::internal::MethodHandler {
 public:
  // `reply_type`: the method's reply message, from the generated pool.
  GuardedMethod(ServerGuard& guard, std::unique_ptr<grpc::internal::MethodHandler> inner,
                const google::protobuf::Message& reply_type)
      : guard_(guard), inner_(std::move(inner)), reply_type_(reply_type) {}

  void* Deserialize(grpc_call* call, grpc_byte_buffer* req, grpc::Status* status, void** handler_data) override {
    return inner_->Deserialize(call, req, status, handler_data);
  }
  void RunHandler(const HandlerParameter& param) override;

 private:
  void RunSync(const HandlerParameter& param, const google::protobuf::Message& request);
  // guarded_callback.cc
  void RunCallback(const HandlerParameter& param, grpc::CallbackServerContext& context,
                   const google::protobuf::Message& request);

  ServerGuard& guard_;
  const std::unique_ptr<grpc::internal::MethodHandler> inner_;
  const google::protobuf::Message& reply_type_;
};

}  // namespace stormguard::rpc::grpc_internal
