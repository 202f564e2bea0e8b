// The two hops without stormguard: the hand-written loop and gRPC's own retries.
#include <thread>

#include "demo/grpc/grpc_hop.h"
#include "demo/measure.h"
#include "stormguard/core/clock.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;
using SystemTime = std::chrono::system_clock::time_point;

constexpr int kAttempts = 3;
constexpr Duration kPause = 100ms;
constexpr auto kTimeout = 1s;  // naive: per attempt; grpc_native: the longest a call may take

class NaiveHop final : public GrpcHop {
 public:
  explicit NaiveHop(int port) : stub_(v1::Demo::NewStub(DemoChannel(port, Mode::kNaive))) {}

  grpc::Status Call(const v1::OpRequest& request, CallContext&, v1::OpReply* reply, std::string*) const override {
    grpc::Status s;
    for (int attempt = 1; attempt <= kAttempts; ++attempt) {
      if (attempt > 1) std::this_thread::sleep_for(kPause);
      grpc::ClientContext c;
      c.set_deadline(std::chrono::system_clock::now() + kTimeout);
      s = stub_->Operate(&c, ForAttempt(request, c), reply);
      if (s.ok()) break;
    }
    return s;
  }

 private:
  std::unique_ptr<v1::Demo::Stub> stub_;
};

class NativeHop final : public GrpcHop {
 public:
  explicit NativeHop(int port) : stub_(v1::Demo::NewStub(DemoChannel(port, Mode::kGrpcNative))) {}

  grpc::Status Call(const v1::OpRequest& request, CallContext& parent, v1::OpReply* reply,
                    std::string*) const override {
    // The served call's deadline passed down, as a gRPC service would.
    SystemTime deadline = std::chrono::system_clock::now() + kTimeout;
    if (!parent.deadline.is_infinite()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::microseconds>(parent.deadline.Remaining(Clock::Real().Now()));
      deadline = std::min(deadline, std::chrono::system_clock::now() + left);
    }
    grpc::ClientContext c;
    c.set_deadline(deadline);
    return stub_->Operate(&c, ForAttempt(request, c), reply);
  }

 private:
  std::unique_ptr<v1::Demo::Stub> stub_;
};

}  // namespace

std::shared_ptr<grpc::Channel> DemoChannel(int port, Mode mode) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_SERVICE_CONFIG_DISABLE_RESOLUTION, 1);
  if (mode == Mode::kGrpcNative) {
    args.SetServiceConfigJSON(kNativeServiceConfig);
  } else {
    args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  }
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args);
}

std::int64_t UnixMsOf(std::chrono::system_clock::time_point t) noexcept {
  if (t == std::chrono::system_clock::time_point::max()) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

v1::OpRequest ForAttempt(const v1::OpRequest& request, const grpc::ClientContext& c) {
  v1::OpRequest out = request;
  out.set_giveup_ms(EarliestGiveup(request.giveup_ms(), UnixMsOf(c.deadline())));
  return out;
}

std::unique_ptr<GrpcHop> MakeGrpcHop(Mode mode, NextHop next, int port) {
  switch (mode) {
    case Mode::kNaive: return std::make_unique<NaiveHop>(port);
    case Mode::kGrpcNative: return std::make_unique<NativeHop>(port);
    case Mode::kStormguard: break;
  }
  return MakeStormguardGrpcHop(next, port);
}

}  // namespace stormguard::demo
