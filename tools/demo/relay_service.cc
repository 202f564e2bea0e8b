// Services A and B: relay GET /stock and POST /charge to the next service,
// retrying the way their mode retries. In stormguard mode the chain-protocol
// middleware hands the handler its CallContext (deadline, retry flag,
// idempotency key) and answers x-no-retry when the call below
// gave up; in naive mode nothing crosses the wire but the request. B of a
// fleet (several replicas of C) also serves GET /admin/replicas: the
// ejections and readmissions its replica set made (replica_log.h).
#include "demo/caller.h"
#include "demo/demo_config.h"
#include "demo/must.h"
#include "demo/service.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

class RelayService final : public Service {
 public:
  explicit RelayService(const ServiceOptions& o)
      : base_("http://127.0.0.1:" + std::to_string(o.downstream_port)),
        caller_(MakeCaller(o.mode, o.role == 'B' ? NextHop::kBottom : NextHop::kRelay, o.replica_ports)),
        serves_replica_log_(!o.replica_ports.empty()) {
    if (o.mode == Mode::kStormguard) {
      middleware_ = Must(http::Middleware::Create({.limits = {.default_budget = 1s, .max_budget = 2s},
                                                   .pipeline = DemoRegistry().Follow("inbound")}));
    }
  }

  void Install(httplib::Server& server) override {
    server.Get("/stock", Handler());
    server.Post("/charge", Handler());
    if (serves_replica_log_) {
      server.Get("/admin/replicas", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(ToJson(DemoReplicaLog().Changes()).dump(), "application/json");
      });
    }
  }

 private:
  httplib::Server::Handler Handler() {
    if (middleware_) {
      return middleware_->Wrap([this](const httplib::Request& req, httplib::Response& res, CallContext& ctx) {
        Forward(req, res, ctx);
      });
    }
    return [this](const httplib::Request& req, httplib::Response& res) {
      CallContext unused;  // naive: no deadline, no flags, nothing inherited
      Forward(req, res, unused);
    };
  }

  void Forward(const httplib::Request& req, httplib::Response& res, CallContext& ctx) const {
    http::HttpRequest next{.method = req.method, .url = base_ + req.path, .body = req.body};
    CallOutcome out = caller_->Call(next, ReadMeasure(req.headers), ctx);
    res.status = out.status;
    res.set_header(kAttemptsHeader, AttemptsPath(out.attempts, out.attempts_below));
    res.set_content(out.body, "text/plain");
  }

  std::string base_;
  std::unique_ptr<Caller> caller_;
  const bool serves_replica_log_;
  std::unique_ptr<http::Middleware> middleware_;
};

}  // namespace

std::unique_ptr<Service> MakeRelayService(const ServiceOptions& options) {
  return std::make_unique<RelayService>(options);
}

}  // namespace stormguard::demo
