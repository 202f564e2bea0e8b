// Service C over gRPC: the HTTP demo's C (bottom_service.cc) behind Operate:
// the ledger counts each arrival, the work fails or is slow as
// fault_schedule.h says, 5% of the successful charges lose their answer.
// In stormguard mode ServerGuard gives the work its deadline (a slow call
// stops there instead of finishing for nobody) and a charge's idempotency
// key runs it at most once (IdempotencyStore). Stats returns the ledger.
#include "demo/demo_config.h"
#include "demo/fault_schedule.h"
#include "demo/grpc/grpc_demo.h"
#include "demo/grpc/grpc_hop.h"
#include "demo/measure.h"
#include "demo/must.h"
#include "stormguard/core/clock.h"
#include "stormguard/grpc/server.h"
#include "stormguard/http/idempotency_store.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

grpc::Status Answer(v1::OpReply* reply, const char* text) {
  reply->set_text(text);
  return grpc::Status::OK;
}

class GrpcBottom final : public v1::Demo::Service {
 public:
  explicit GrpcBottom(const ServiceOptions& o) : faults_(FaultRates{}, o.seed, o.outage_phases) {
    if (o.mode != Mode::kStormguard) return;
    store_ = Must(http::IdempotencyStore::Create({.max_entries = 100'000, .ttl = 10min}));
    guard_ = Must(rpc::ServerGuard::Create({.limits = {.default_budget = 1s, .max_budget = 2s},
                                            .pipeline = DemoRegistry().Follow("inbound")}));
  }

  grpc::Status Stats(grpc::ServerContext*, const v1::StatsRequest*, v1::StatsReply* reply) override {
    reply->set_json(ToJson(ledger_.Snapshot()).dump());
    return grpc::Status::OK;
  }

  grpc::Status Operate(grpc::ServerContext* c, const v1::OpRequest* request, v1::OpReply* reply) override {
    auto visit = ledger_.Arrive(request->phase(), http::UnixNowMs());
    const std::int64_t giveup = EarliestGiveup(request->giveup_ms(), UnixMsOf(c->deadline()));
    const grpc::Status s =
        guard_ ? guard_->Serve(*c, [&](CallContext& ctx) { return Keyed(*request, ctx, giveup, reply); })
               : Work(*request, Deadline(), giveup, reply);
    if (request->charge() && s.ok() && faults_.DrawLostResponse()) {
      Clock::Real().SleepFor(faults_.rates().lost_delay, {});
    }
    return s;
  }

 private:
  // A charge with a key takes effect once; a repeat gets the first's answer.
  grpc::Status Keyed(const v1::OpRequest& request, CallContext& ctx, std::int64_t giveup, v1::OpReply* reply) {
    if (!request.charge() || ctx.idempotency_key.empty()) return Work(request, ctx.deadline, giveup, reply);
    const http::IdempotencyScope scope{.method = "Operate", .path = "charge", .key = ctx.idempotency_key};
    Clock& clock = Clock::Real();
    const http::IdempotencyClaim claim = store_->Begin(scope, http::BodyFingerprint(request.op()), clock.Now());
    switch (claim.state) {
      case http::IdempotencyClaim::kFirst: {
        const grpc::Status s = Work(request, ctx.deadline, giveup, reply);
        if (s.ok()) {
          store_->Complete(scope, {.status = 200}, clock.Now());
        } else {
          store_->Abandon(scope);  // failed before any effect: a retry may run it
        }
        return s;
      }
      case http::IdempotencyClaim::kDone: return Answer(reply, "charged");
      case http::IdempotencyClaim::kRunning:
        if (store_->AwaitCompletion(scope, ctx.deadline.Remaining(clock.Now()))) return Answer(reply, "charged");
        return {grpc::StatusCode::ABORTED, "this charge is still running"};
      case http::IdempotencyClaim::kMismatch: break;
    }
    return {grpc::StatusCode::INVALID_ARGUMENT, "idempotency key reused for another charge"};
  }

  grpc::Status Work(const v1::OpRequest& request, Deadline deadline, std::int64_t giveup, v1::OpReply* reply) {
    Clock& clock = Clock::Real();
    const TimePoint start = clock.Now();
    if (faults_.InOutage(request.phase())) return {grpc::StatusCode::UNAVAILABLE, "C is down"};
    const Fault fault = faults_.Draw();
    if (fault == Fault::kError) return {grpc::StatusCode::UNAVAILABLE, "transient error"};
    if (fault == Fault::kSlow) {
      const TimePoint done = start + faults_.rates().slow_time;
      clock.SleepUntil(std::min(done, deadline.time()), {});
      if (deadline.time() < done) return {grpc::StatusCode::DEADLINE_EXCEEDED, "gave up at the deadline, work undone"};
    }
    ledger_.Complete(request.phase(), giveup, http::UnixNowMs());
    if (!request.charge()) return Answer(reply, "in stock");
    ledger_.Effect(request.phase(), request.op());
    return Answer(reply, "charged");
  }

  FaultSchedule faults_;
  BottomLedger ledger_;
  std::unique_ptr<http::IdempotencyStore> store_;
  std::unique_ptr<rpc::ServerGuard> guard_;
};

}  // namespace

std::unique_ptr<v1::Demo::Service> MakeGrpcBottom(const ServiceOptions& options) {
  return std::make_unique<GrpcBottom>(options);
}

}  // namespace stormguard::demo
