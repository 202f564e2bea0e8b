// Services A and B over gRPC: relay Operate to the next service, retrying
// the way their mode retries, and answer with the status the call below
// ended with (so gRPC's own retries above see UNAVAILABLE as retryable, as
// they would in a real chain). In stormguard mode ServerGuard hands the
// handler its CallContext and answers pushback -1 when the call below gave up.
#include "demo/demo_config.h"
#include "demo/grpc/grpc_demo.h"
#include "demo/grpc/grpc_hop.h"
#include "demo/measure.h"
#include "demo/must.h"
#include "stormguard/core/clock.h"
#include "stormguard/grpc/chain_metadata.h"
#include "stormguard/grpc/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

// The served call's gRPC deadline on the real clock (none: infinite).
Deadline DeadlineOf(const grpc::ServerContext& c) {
  const Duration left = rpc::RemainingOf(c);
  return left == kInfiniteDuration ? Deadline() : Deadline::After(Clock::Real().Now(), left);
}

class GrpcRelay final : public v1::Demo::Service {
 public:
  explicit GrpcRelay(const ServiceOptions& o)
      : hop_(MakeGrpcHop(o.mode, o.role == 'B' ? NextHop::kBottom : NextHop::kRelay, o.downstream_port)) {
    if (o.mode == Mode::kStormguard) {
      guard_ = Must(rpc::ServerGuard::Create({.limits = {.default_budget = 1s, .max_budget = 2s},
                                              .pipeline = DemoRegistry().Follow("inbound")}));
    }
  }

  grpc::Status Operate(grpc::ServerContext* c, const v1::OpRequest* request, v1::OpReply* reply) override {
    std::string attempts;
    grpc::Status s;
    if (guard_) {
      s = guard_->Serve(*c, [&](CallContext& ctx) { return hop_->Call(*request, ctx, reply, &attempts); });
    } else {
      CallContext ctx{.deadline = DeadlineOf(*c)};  // grpc_native passes it down; naive ignores it
      s = hop_->Call(*request, ctx, reply, &attempts);
    }
    if (!attempts.empty()) c->AddTrailingMetadata(kAttemptsHeader, attempts);
    return s;
  }

 private:
  std::unique_ptr<GrpcHop> hop_;
  std::unique_ptr<rpc::ServerGuard> guard_;
};

}  // namespace

std::unique_ptr<v1::Demo::Service> MakeGrpcRelay(const ServiceOptions& options) {
  return std::make_unique<GrpcRelay>(options);
}

}  // namespace stormguard::demo
