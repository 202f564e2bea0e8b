// ServerGuard::Wrap, and the sync half of GuardedMethod: the original
// handler runs inside ServerGuard::Serve, and answers through an AnswerTap.
#include "guarded_method.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/support/method_handler.h>

#include <optional>
#include <string>

#include "answer_tap.h"
#include "grpc_internals.h"

namespace stormguard::rpc {
namespace grpc_internal {
namespace {

// The reply type of a method gRPC names "/package.Service/Method", when it
// is a generated protobuf method.
const google::protobuf::Message* ReplyTypeOf(const char* name) {
  std::string full = name[0] == '/' ? name + 1 : name;
  const std::string::size_type slash = full.rfind('/');
  if (slash == std::string::npos) return nullptr;
  full[slash] = '.';
  const google::protobuf::MethodDescriptor* method =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(full);
  if (method == nullptr) return nullptr;
  return google::protobuf::MessageFactory::generated_factory()->GetPrototype(method->output_type());
}

// Sees the handler's answer on its way out, on the handler's thread.
class SyncTap final : public AnswerTap {
 public:
  SyncTap(const grpc::internal::Call& real, google::protobuf::Message* record) : AnswerTap(real), record_(record) {}

  // What the guard does once the handler returned (a do-not-retry mark)
  // must leave with its answer: `pass_on` does it.
  void Watch(FunctionRef<grpc::Status(grpc::Status)> pass_on) { pass_on_.emplace(pass_on); }
  bool answered() const { return answered_; }
  const grpc::Status& status() const { return status_; }

 private:
  void OnAnswer(PendingAnswer answer) override {
    answered_ = true;
    status_ = answer.status();
    const google::protobuf::MessageLite* reply = answer.reply();
    if (record_ != nullptr && reply != nullptr) record_->CheckTypeAndMergeFrom(*reply);
    if (pass_on_) status_ = (*pass_on_)(status_);
    answer.Send();
  }

  google::protobuf::Message* const record_;  // the keyed call's reply, or null
  std::optional<FunctionRef<grpc::Status(grpc::Status)>> pass_on_;
  bool answered_ = false;
  grpc::Status status_;
};

}  // namespace

void GuardedMethod::RunHandler(const HandlerParameter& param) {
  // A generated message derives from MessageLite alone: the same address,
  // however the handler's Deserialize typed it.
  const auto* request = param.request == nullptr
                            ? nullptr
                            : dynamic_cast<const google::protobuf::Message*>(
                                  static_cast<const google::protobuf::MessageLite*>(param.request));
  // A request that did not parse gets gRPC's own answer; a method without
  // one (marked streamed) is not unary here.
  if (!param.status.ok() || request == nullptr) return inner_->RunHandler(param);
  if (auto* callback = dynamic_cast<grpc::CallbackServerContext*>(param.server_context)) {
    return RunCallback(param, *callback, *request);
  }
  RunSync(param, *request);
}

void GuardedMethod::RunSync(const HandlerParameter& param, const google::protobuf::Message& request) {
  grpc::ServerContextBase& context = *param.server_context;
  const bool keyed = guard_.o_.idempotency != nullptr;
  const std::unique_ptr<google::protobuf::Message> reply(keyed ? reply_type_.New() : nullptr);
  SyncTap tap(*param.call, reply.get());
  grpc::internal::Call tapped = tap.Tapped();
  const HandlerParameter through(&tapped, param.server_context, param.request, param.status, param.internal_data,
                                 param.call_requester);
  const auto handler = [&](CallContext& ctx) {
    const auto pass_on = [&](grpc::Status status) {
      status = guard_.PassOn(context, ctx, std::move(status));
      ctx.downstream_gave_up = false;  // passed on: Serve's own PassOn, after the answer left, has nothing to add
      return status;
    };
    tap.Watch(pass_on);
    inner_->RunHandler(through);
    return tap.status();
  };
  grpc::Status status = keyed ? guard_.Serve(context, request, *reply, handler) : guard_.Serve(context, handler);
  if (tap.answered()) return;
  // Answered without the handler: the request is ours to free, as gRPC's
  // handler frees it after running.
  static_cast<google::protobuf::MessageLite*>(param.request)->~MessageLite();
  grpc::internal::UnaryRunHandlerHelper(param, reply.get(), status);
}

}  // namespace grpc_internal

grpc::Service* ServerGuard::Wrap(grpc::Service* service) {
  for (const std::unique_ptr<grpc::internal::RpcServiceMethod>& method : grpc_internal::MethodsOf(*service)) {
    if (method == nullptr || method->method_type() != grpc::internal::RpcMethod::NORMAL_RPC) continue;
    const auto api = method->api_type();
    using Api = grpc::internal::RpcServiceMethod::ApiType;
    grpc_internal::HandlerSlot& handler = grpc_internal::HandlerOf(*method);
    if (handler == nullptr || (api != Api::SYNC && api != Api::CALL_BACK)) continue;
    if (dynamic_cast<grpc_internal::GuardedMethod*>(handler.get()) != nullptr) continue;  // wrapped already
    const google::protobuf::Message* reply_type = grpc_internal::ReplyTypeOf(method->name());
    if (reply_type == nullptr) continue;
    handler = std::make_unique<grpc_internal::GuardedMethod>(*this, std::move(handler), *reply_type);
  }
  return service;
}

}  // namespace stormguard::rpc
