// stormguard/grpc/metrics_service.h: a MetricsListener's scrape served by a
// gRPC server, for a service that has no HTTP server for /metrics.
//
//   MetricsListener metrics;
//   stormguard::rpc::MetricsService metrics_service(metrics);
//   grpc::ServerBuilder builder;
//   builder.RegisterService(&my_service);
//   builder.RegisterService(&metrics_service);  // stormguard.v1.Metrics/Scrape
//
// A client calls stormguard.v1.Metrics/Scrape (proto/stormguard/v1/metrics.proto)
// and gets the text exposition, format 0.0.4, with its content type:
//
//   grpcurl -plaintext -proto metrics.proto host:port stormguard.v1.Metrics/Scrape
//
// It is an ordinary grpc::Service, registered like a generated one, next to
// the server's other services (a generic service would take every unknown
// method, and a server has only one). Its one method is a raw callback
// method: the library encodes the small reply itself, so neither it nor its
// users compile a .proto or link a protobuf runtime to serve it. The
// request's content is ignored. A scrape of many instances can pass gRPC's
// default 4 MiB receive limit: a client raises it (SetMaxReceiveMessageSize).
//
// The listener must outlive the server. Thread safety: as
// MetricsListener::Scrape; each call runs on one of gRPC's callback threads.
#pragma once

#include <grpcpp/impl/service_type.h>

#include <string>
#include <string_view>

#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::rpc {

class MetricsService final : public grpc::Service {
 public:
  static constexpr char kMethod[] = "/stormguard.v1.Metrics/Scrape";

  explicit MetricsService(const MetricsListener& metrics);
};

// The ScrapeReply message's wire encoding: text (field 1), content_type (field 2).
std::string EncodeScrapeReply(std::string_view text, std::string_view content_type);

}  // namespace stormguard::rpc
