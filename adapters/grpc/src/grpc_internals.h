// The few parts of gRPC 1.51's C++ internals that ServerGuard::Wrap reaches,
// each behind one function, so that a gRPC upgrade that moves them fails to
// compile here and nowhere else.
//
// gRPC has no public hook that runs before a method's handler and also sees
// its answer before it leaves (a server interceptor sees the answer but can
// neither refuse a call nor keep the handler from running). So Wrap replaces
// each unary method's MethodHandler with one that calls the original inside
// the guard, and hands the original a Call whose CallHook sees the answer's
// operations (AnswerTap):
//   - MethodsOf and HandlerOf reach grpc::Service::methods_ and
//     RpcServiceMethod::handler_ (private members: an explicit template
//     instantiation may name them, [temp.spec.general]);
//   - PeekAnswer reads the status and reply of an answer through the hook
//     points gRPC's own server interceptors read them through (protected
//     members, named through a derived class).
#pragma once

#include <grpcpp/impl/call_op_set.h>
#include <grpcpp/impl/codegen/interceptor_common.h>
#include <grpcpp/impl/rpc_service_method.h>
#include <grpcpp/impl/service_type.h>

#include <memory>
#include <vector>

namespace stormguard::rpc::grpc_internal {

using ServiceMethods = std::vector<std::unique_ptr<grpc::internal::RpcServiceMethod>>;
using HandlerSlot = std::unique_ptr<grpc::internal::MethodHandler>;

// The service's methods, in the order its generated code added them; an
// entry is null for a method marked generic.
ServiceMethods& MethodsOf(grpc::Service& service);
// The method's handler, owned; null for an async or raw method.
HandlerSlot& HandlerOf(grpc::internal::RpcServiceMethod& method);

template <ServiceMethods grpc::Service::*Member>
struct ServiceMethodsAccess {
  friend ServiceMethods& MethodsOf(grpc::Service& service) { return service.*Member; }
};
template struct ServiceMethodsAccess<&grpc::Service::methods_>;

template <HandlerSlot grpc::internal::RpcServiceMethod::*Member>
struct HandlerAccess {
  friend HandlerSlot& HandlerOf(grpc::internal::RpcServiceMethod& method) { return method.*Member; }
};
template struct HandlerAccess<&grpc::internal::RpcServiceMethod::handler_>;

// Each names its base's protected hook through itself, as a derived class may.
struct StatusHook : grpc::internal::CallOpServerSendStatus {
  static constexpr auto kPoint = &StatusHook::SetInterceptionHookPoint;
};
struct MessageHook : grpc::internal::CallOpSendMessage {
  static constexpr auto kPoint = &MessageHook::SetInterceptionHookPoint;
};

// Points `view` at the status, trailing metadata and reply (when there is
// one) of `ops` when they are an answer (they send a status); false
// otherwise. view.GetSendStatus/ModifySendStatus then read and change it.
inline bool PeekAnswer(grpc::internal::CallOpSetInterface& ops, grpc::internal::InterceptorBatchMethodsImpl& view) {
  auto* status = dynamic_cast<grpc::internal::CallOpServerSendStatus*>(&ops);
  if (status == nullptr) return false;
  (status->*StatusHook::kPoint)(&view);
  if (auto* message = dynamic_cast<grpc::internal::CallOpSendMessage*>(&ops)) (message->*MessageHook::kPoint)(&view);
  return view.QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS);
}

}  // namespace stormguard::rpc::grpc_internal
