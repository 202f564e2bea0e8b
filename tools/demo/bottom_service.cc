// Service C: the bottom of the chain, where the work and its side effects
// happen and where the demo counts what every mode costs.
//
// Each request passes, outermost first: the ledger (counts the arrival),
// the lost-response fault (a successful charge whose answer arrives only
// after the caller's timeout: the effect happened, the caller cannot know),
// then in stormguard mode the middleware with an IdempotencyStore (a repeat
// of a charge takes effect once), then the work itself. The work honours
// the request's deadline in stormguard mode: a slow request stops at it
// instead of finishing for nobody. POST /admin/slow opens a window in which
// every request is slow (see slow_window.h).
#include "demo/bottom_ledger.h"
#include "demo/demo_config.h"
#include "demo/fault_schedule.h"
#include "demo/measure.h"
#include "demo/must.h"
#include "demo/service.h"
#include "demo/slow_window.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

void Answer(httplib::Response& res, int status, const char* body) {
  res.status = status;
  res.set_content(body, "text/plain");
}

class BottomService final : public Service {
 public:
  explicit BottomService(const ServiceOptions& o) : faults_(FaultRates{}, o.seed, o.outage_phases, o.gray) {
    if (o.mode == Mode::kNaive) return;
    store_ = Must(http::IdempotencyStore::Create({.max_entries = 100'000, .ttl = 10min}));
    middleware_ = Must(http::Middleware::Create({.limits = {.default_budget = 1s, .max_budget = 2s},
                                                 .idempotency = store_.get(),
                                                 .pipeline = DemoRegistry().Follow("inbound")}));
  }

  void Install(httplib::Server& server) override {
    server.Get("/stock", Measured(Work()));
    server.Post("/charge", Measured(Work()));
    server.Get("/admin/stats", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(ToJson(ledger_.Snapshot()).dump(), "application/json");
    });
    server.Post("/admin/slow", [this](const httplib::Request& req, httplib::Response& res) {
      const Status s = slow_.Open(req.params, Clock::Real().Now());
      Answer(res, s.ok() ? 200 : 400, s.ok() ? "slow" : s.message().c_str());
    });
  }

 private:
  httplib::Server::Handler Work() {
    if (middleware_) {
      return middleware_->Wrap([this](const httplib::Request& req, httplib::Response& res, CallContext& ctx) {
        DoWork(req, res, ctx.deadline);
      });
    }
    return [this](const httplib::Request& req, httplib::Response& res) { DoWork(req, res, Deadline()); };
  }

  httplib::Server::Handler Measured(httplib::Server::Handler inner) {
    return [this, inner = std::move(inner)](const httplib::Request& req, httplib::Response& res) {
      const Measure m = ReadMeasure(req.headers);
      auto visit = ledger_.Arrive(m.phase, http::UnixNowMs());
      inner(req, res);
      if (req.method == "POST" && res.status == 200 && faults_.DrawLostResponse()) {
        Clock::Real().SleepFor(faults_.rates().lost_delay, {});
      }
    };
  }

  void DoWork(const httplib::Request& req, httplib::Response& res, Deadline deadline) {
    Clock& clock = Clock::Real();
    const TimePoint start = clock.Now();
    const Measure m = ReadMeasure(req.headers);
    const std::int64_t giveup = EarliestGiveup(m.giveup_ms, WallMsOf(deadline, start, http::UnixNowMs()));
    if (faults_.InOutage(m.phase)) return Answer(res, 503, "C is down");
    const Fault gray = faults_.DrawGray(m.phase);
    const Fault fault = gray != Fault::kNone ? gray : faults_.Draw();
    if (fault == Fault::kError) return Answer(res, 503, gray != Fault::kNone ? "gray replica" : "transient error");
    Duration slow = slow_.DelayAt(start);
    if (fault == Fault::kSlow) {
      slow = std::max(slow, gray != Fault::kNone ? faults_.gray().latency : faults_.rates().slow_time);
    }
    if (slow > Duration::zero()) {
      const TimePoint done = start + slow;
      clock.SleepUntil(std::min(done, deadline.time()), {});
      if (deadline.time() < done) return Answer(res, 504, "gave up at the deadline, work undone");
    }
    ledger_.Complete(m.phase, giveup, http::UnixNowMs());
    if (req.method == "POST") {
      ledger_.Effect(m.phase, m.op);
      return Answer(res, 200, "charged");
    }
    Answer(res, 200, "in stock");
  }

  FaultSchedule faults_;
  SlowWindow slow_;
  BottomLedger ledger_;
  std::unique_ptr<http::IdempotencyStore> store_;
  std::unique_ptr<http::Middleware> middleware_;
};

}  // namespace

std::unique_ptr<Service> MakeBottomService(const ServiceOptions& options) {
  return std::make_unique<BottomService>(options);
}

}  // namespace stormguard::demo
