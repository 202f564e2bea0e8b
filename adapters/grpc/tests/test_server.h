// A real Echo server on loopback for the integration tests: port picked by
// the system, handler supplied by the test, stopped when it goes out of scope.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "echo.grpc.pb.h"

namespace stormguard::rpc::testkit {

using test::EchoReply;
using test::EchoRequest;

inline constexpr std::string_view kSayPath = "/stormguard.test.Echo/Say";  // for RawUnaryCall

// Serves `services` on a loopback port the system picks, until destroyed.
class Loopback {
 public:
  explicit Loopback(std::initializer_list<grpc::Service*> services) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    for (grpc::Service* service : services) builder.RegisterService(service);
    server_ = builder.BuildAndStart();
    EXPECT_NE(server_, nullptr);
    EXPECT_GT(port_, 0);
  }
  ~Loopback() {
    // Bounded: calls still running are cancelled after the grace period.
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

using SayHandler = std::function<grpc::Status(grpc::ServerContext&, const EchoRequest&, EchoReply&)>;

class EchoServer final : public test::Echo::Service {
 public:
  explicit EchoServer(SayHandler handler) : handler_(std::move(handler)), loopback_({this}) {}
  std::string address() const { return loopback_.address(); }

  grpc::Status Say(grpc::ServerContext* context, const EchoRequest* request, EchoReply* reply) override {
    return handler_(*context, *request, *reply);
  }

 private:
  SayHandler handler_;
  Loopback loopback_;  // last: stops before the handler goes
};

// The same service in gRPC's callback API.
using CallbackSayHandler =
    std::function<grpc::ServerUnaryReactor*(grpc::CallbackServerContext&, const EchoRequest&, EchoReply&)>;

class CallbackEchoServer final : public test::Echo::CallbackService {
 public:
  explicit CallbackEchoServer(CallbackSayHandler handler) : handler_(std::move(handler)), loopback_({this}) {}
  std::string address() const { return loopback_.address(); }

  using test::Echo::CallbackService::Say;  // the sync form stays hidden behind this one
  grpc::ServerUnaryReactor* Say(grpc::CallbackServerContext* context, const EchoRequest* request,
                                EchoReply* reply) override {
    return handler_(*context, *request, *reply);
  }

 private:
  CallbackSayHandler handler_;
  Loopback loopback_;  // last: stops before the handler goes
};

// A channel with gRPC's own retries configured only by `service_config`
// (empty: none), never by a DNS TXT record.
inline std::shared_ptr<grpc::Channel> Channel(const std::string& address, const std::string& service_config = {}) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_SERVICE_CONFIG_DISABLE_RESOLUTION, 1);
  if (!service_config.empty()) args.SetServiceConfigJSON(service_config);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

inline std::unique_ptr<test::Echo::Stub> Stub(const std::string& address, const std::string& service_config = {}) {
  return test::Echo::NewStub(Channel(address, service_config));
}

inline grpc::Status CallWithin(test::Echo::Stub& stub, std::chrono::milliseconds budget, EchoReply* reply) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + budget);
  return stub.Say(&context, EchoRequest(), reply);
}

}  // namespace stormguard::rpc::testkit
