#include "demo/demo_runner.h"

#include "demo/caller.h"
#include "demo/ledger_query.h"
#include "demo/load_generator.h"
#include "demo/metrics_server.h"
#include "demo/service_process.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

constexpr Duration kEntryBudget = 1s;  // stormguard: the whole chain's deadline
constexpr Duration kDrainLimit = 3s;   // C finishing its last (slow) work

std::string Url(int port, const std::string& path) { return "http://127.0.0.1:" + std::to_string(port) + path; }

using Services = std::vector<std::unique_ptr<ServiceProcess>>;

// Starts C, then B and A pointing at the one below; services[0] is C, [2] is A.
Result<Services> StartServices(Mode mode, const DemoOptions& o) {
  Services services;
  int downstream = 0;
  const auto lifetime = std::chrono::ceil<std::chrono::seconds>(ServiceLifetime(o.Phases()));
  for (const char* role : {"C", "B", "A"}) {
    std::vector<std::string> args = {"--role",         role,
                                     "--mode",         std::string(ModeName(mode)),
                                     "--transport",    std::string(TransportName(o.transport)),
                                     "--seed",         std::to_string(o.seed),
                                     "--max-lifetime", std::to_string(lifetime.count())};
    if (downstream != 0) args.insert(args.end(), {"--downstream", std::to_string(downstream)});
    if (mode == Mode::kStormguard) {
      for (std::string& a : o.config.Args()) args.push_back(std::move(a));
    }
    for (const Phase& p : o.Phases()) {
      if (downstream == 0 && p.bottom_down) args.insert(args.end(), {"--outage-phase", p.name});
    }
    auto s = ServiceProcess::Start(o.self_exe, args);
    if (!s.ok()) return Status::Unavailable("service " + std::string(role) + ": " + s.status().ToString());
    downstream = (*s)->port();
    services.push_back(std::move(s).value());
  }
  return services;
}

Result<ModeReport> RunMode(Mode mode, const DemoOptions& o, const DemoDriver& driver, std::FILE* progress) {
  const std::string name(ModeName(mode));
  std::fprintf(progress, "%s: starting services A -> B -> C\n", name.c_str());
  Result<Services> services = StartServices(mode, o);
  if (!services.ok()) return services.status();
  const int bottom = (*services)[0]->port(), entry = (*services)[2]->port();
  const std::vector<Phase> phases = o.Phases();
  const EntrySend entry_send = driver.entry(mode, entry);
  const LoadPlan plan{.rate = o.rate, .phases = phases, .seed = o.seed, .start = Clock::Real().Now() + 100ms};
  const std::int64_t start_unix_ms = http::UnixNowMs() + 100;

  const PhaseFn on_phase = [&](std::size_t p) {
    std::fprintf(progress, "%s: %s\n", name.c_str(), phases[p].name.c_str());
  };
  const SendFn send = [&](const Operation& op) { return entry_send(op, phases[op.phase].name); };
  const std::vector<OperationResult> results = RunOpenLoop(plan, send, on_phase);
  std::fprintf(progress, "%s: every operation answered; reading C's ledger\n", name.c_str());
  Result<BottomSnapshot> ledger = ReadSettledLedger([&] { return driver.read_ledger(bottom); }, kDrainLimit);
  if (!ledger.ok()) return ledger.status();
  return Summarize(mode, phases, results, *ledger, start_unix_ms);
}

}  // namespace

DemoDriver HttpDriver() {
  return {.entry = [](Mode mode, int entry) -> EntrySend {
            std::shared_ptr<const Caller> caller = MakeCaller(mode, NextHop::kRelay);
            return [mode, entry, caller](const Operation& op, const std::string& phase) {
              // Naive callers ignore the deadline and the key; stormguard's use both.
              CallContext root{.deadline = mode == Mode::kStormguard
                                               ? Deadline::After(Clock::Real().Now(), kEntryBudget)
                                               : Deadline()};
              if (op.charge) root.idempotency_key = "charge-" + std::to_string(op.id);
              const http::HttpRequest request{.method = op.charge ? "POST" : "GET",
                                              .url = Url(entry, op.charge ? "/charge" : "/stock"),
                                              .body = op.charge ? R"({"amount": 1})" : ""};
              return caller->Call(request, {.op = std::to_string(op.id), .phase = phase}, root).ok();
            };
          },
          .read_ledger = [](int bottom) { return ReadLedger(bottom); }};
}

Result<DemoReport> RunDemo(const DemoOptions& options, std::FILE* progress, const DemoDriver& driver) {
  const InterruptGuard guard;
  std::unique_ptr<MetricsServer> metrics;
  if (options.metrics_port != 0) {
    Result<std::unique_ptr<MetricsServer>> m = MetricsServer::Start(DemoMetrics(), options.metrics_port);
    if (!m.ok()) return m.status();
    metrics = std::move(m).value();
    std::fprintf(progress, "metrics: %s\n", Url(options.metrics_port, "/metrics").c_str());
  }
  const TimePoint start = Clock::Real().Now();
  DemoReport report{.rate = options.rate, .phases = options.Phases(), .transport = options.transport};
  for (Mode mode : ModesOf(options.transport)) {
    Result<ModeReport> m = RunMode(mode, options, driver, progress);
    if (!m.ok()) return m.status();
    report.modes.push_back(std::move(m).value());
  }
  report.wall = Clock::Real().Now() - start;
  return report;
}

}  // namespace stormguard::demo
