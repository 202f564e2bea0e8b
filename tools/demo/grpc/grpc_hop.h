// tools/demo/grpc/grpc_hop.h: one logical call to the next gRPC service,
// retried the way a mode retries.
//
//   auto hop = MakeGrpcHop(Mode::kGrpcNative, NextHop::kBottom, c_port);
//   std::string attempts;  // "1,3": this hop's attempts, then the hops' below
//   grpc::Status s = hop->Call(request, ctx, &reply, &attempts);
//
// naive: a hand-written loop, 3 attempts 100 ms apart, 1 s each, every
// failure retried (charges too), on a channel with gRPC's retries off.
// grpc_native: one stub call on a channel whose service config retries
// (kNativeServiceConfig); its deadline is the caller's, at most 1 s.
// stormguard: GrpcClient through the demo's pipeline for the next hop.
// Every attempt lowers the request's giveup_ms to its own deadline.
// Thread safety: one hop serves any number of threads.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "demo.grpc.pb.h"
#include "demo/caller.h"
#include "demo/demo_options.h"
#include "stormguard/core/call_context.h"

namespace stormguard::demo {

// gRPC's own retries as a service would configure them (gRFC A6): 3 attempts
// on gRPC's default retryable code, and the retry throttle.
inline constexpr const char* kNativeServiceConfig = R"({
  "methodConfig": [{
    "name": [{"service": "stormguard.demo.v1.Demo", "method": "Operate"}],
    "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}})";

class GrpcHop {
 public:
  virtual ~GrpcHop() = default;
  // `parent` is the work the call belongs to (the served call, or the load
  // generator's root context). `attempts_path` (may be null) receives the
  // attempts made from here down (AttemptsPath, measure.h), where the hop
  // counts them: the stormguard one does.
  virtual grpc::Status Call(const v1::OpRequest& request, CallContext& parent, v1::OpReply* reply,
                            std::string* attempts_path) const = 0;
};

std::unique_ptr<GrpcHop> MakeGrpcHop(Mode mode, NextHop next, int port);
std::unique_ptr<GrpcHop> MakeStormguardGrpcHop(NextHop next, int port);

// A loopback channel to `port`: the native service config in grpc_native
// mode, gRPC's retries off otherwise (they would retry under our own).
std::shared_ptr<grpc::Channel> DemoChannel(int port, Mode mode);

// `t` as wall-clock Unix ms; 0 for gRPC's "no deadline".
std::int64_t UnixMsOf(std::chrono::system_clock::time_point t) noexcept;

// `request` with giveup_ms lowered to the deadline of the attempt on `c`.
v1::OpRequest ForAttempt(const v1::OpRequest& request, const grpc::ClientContext& c);

}  // namespace stormguard::demo
