// The library at every hop: GrpcClient through the pipeline stormguard.json
// configures for the next hop (as the HTTP demo's StormguardCaller): retry
// with jittered backoff and a retry budget per destination, the deadline
// handed down (ServerGuard kept this hop's reserve), x-stormguard-attempt on
// retries, grpc-retry-pushback-ms -1 honoured, one idempotency key across a
// charge's retries.
#include <mutex>

#include "demo/demo_config.h"
#include "demo/grpc/grpc_hop.h"
#include "demo/measure.h"
#include "demo/must.h"
#include "stormguard/grpc/client.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

// The attempts path the hop below answered with, from the attempt that
// ended last (a hedge's attempts may end on two threads at once).
class AttemptsBelow {
 public:
  void Keep(const grpc::ClientContext& c) {
    const auto& trailers = c.GetServerTrailingMetadata();
    const auto it = trailers.find(kAttemptsHeader);
    if (it == trailers.end()) return;
    std::lock_guard lock(mu_);
    path_.assign(it->second.data(), it->second.size());
  }
  std::string Get() const {
    std::lock_guard lock(mu_);
    return path_;
  }

 private:
  mutable std::mutex mu_;
  std::string path_;
};

class StormguardHop final : public GrpcHop {
 public:
  StormguardHop(NextHop next, int port)
      : stub_(v1::Demo::NewStub(DemoChannel(port, Mode::kStormguard))),
        // The bottom hop's pipeline has a short attempt timeout (its callee
        // answers in milliseconds); a hop above a relay leaves each attempt
        // the whole deadline, so the layer below can finish its own retries.
        client_(Must(rpc::GrpcClient::Create({.pipeline =
                                                  DemoRegistry().Follow(next == NextHop::kBottom ? "bottom" : "relay"),
                                              .default_timeout = 1s}))) {}

  grpc::Status Call(const v1::OpRequest& request, CallContext& parent, v1::OpReply* reply,
                    std::string* attempts_path) const override {
    const rpc::CallOptions options{.idempotent = !request.charge(),
                                   .idempotency_key = request.charge() ? parent.idempotency_key : ""};
    AttemptsBelow below;
    const rpc::GrpcResult r = client_.Call<v1::OpReply>(
        parent,
        [&](grpc::ClientContext& c, v1::OpReply* out) {
          const grpc::Status s = stub_->Operate(&c, ForAttempt(request, c), out);
          below.Keep(c);
          return s;
        },
        reply, options);
    if (attempts_path != nullptr) *attempts_path = AttemptsPath(r.attempts, below.Get());
    return rpc::ToGrpc(r.status);
  }

 private:
  std::unique_ptr<v1::Demo::Stub> stub_;
  rpc::GrpcClient client_;
};

}  // namespace

std::unique_ptr<GrpcHop> MakeStormguardGrpcHop(NextHop next, int port) {
  return std::make_unique<StormguardHop>(next, port);
}

}  // namespace stormguard::demo
