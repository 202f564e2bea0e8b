#include "demo/demo_runner.h"

#include "demo/caller.h"
#include "demo/ledger_query.h"
#include "demo/load_generator.h"
#include "demo/metrics_server.h"
#include "demo/replica_log.h"
#include "demo/service_process.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

constexpr Duration kEntryBudget = 1s;  // stormguard: the whole chain's deadline
constexpr Duration kDrainLimit = 3s;   // C finishing its last (slow) work

std::string Url(int port, const std::string& path) { return "http://127.0.0.1:" + std::to_string(port) + path; }

// C's replicas (one unless --replicas), then B and A.
struct Services {
  std::vector<std::unique_ptr<ServiceProcess>> bottoms;
  std::unique_ptr<ServiceProcess> relay, entry;  // B, A
};

std::string Nanoseconds(Duration d) { return std::to_string(d.count()) + "ns"; }

// How replica 0 of a fleet turns gray, for its command line.
std::vector<std::string> GrayArgs(const DemoOptions& o) {
  std::vector<std::string> args = {"--gray-mode",    std::string(GrayModeName(o.fleet.mode)),
                                   "--gray-share",   std::to_string(o.fleet.share),
                                   "--gray-latency", Nanoseconds(o.fleet.latency)};
  for (const Phase& p : o.Phases()) {
    if (p.gray) args.insert(args.end(), {"--gray-phase", p.name});
  }
  return args;
}

Result<std::unique_ptr<ServiceProcess>> StartService(Mode mode, const DemoOptions& o, const char* role,
                                                     std::vector<std::string> extra) {
  const auto lifetime = std::chrono::ceil<std::chrono::seconds>(ServiceLifetime(o.Phases()));
  std::vector<std::string> args = {"--role",         role,
                                   "--mode",         std::string(ModeName(mode)),
                                   "--transport",    std::string(TransportName(o.transport)),
                                   "--seed",         std::to_string(o.seed),
                                   "--max-lifetime", std::to_string(lifetime.count())};
  if (mode == Mode::kStormguard) {
    for (std::string& a : o.config.Args()) args.push_back(std::move(a));
  }
  for (std::string& a : extra) args.push_back(std::move(a));
  auto s = ServiceProcess::Start(o.self_exe, args);
  if (!s.ok()) return Status::Unavailable("service " + std::string(role) + ": " + s.status().ToString());
  return s;
}

// Starts C (each replica), then B and A pointing at the one below.
Result<Services> StartServices(Mode mode, const DemoOptions& o) {
  Services services;
  for (int r = 0; r < o.fleet.replicas; ++r) {
    std::vector<std::string> extra;
    for (const Phase& p : o.Phases()) {
      if (p.bottom_down) extra.insert(extra.end(), {"--outage-phase", p.name});
    }
    if (r == 0 && o.fleet.enabled()) extra = GrayArgs(o);
    auto c = StartService(mode, o, "C", std::move(extra));
    if (!c.ok()) return c.status();
    services.bottoms.push_back(std::move(c).value());
  }
  std::vector<std::string> b_args = {"--downstream", std::to_string(services.bottoms[0]->port())};
  for (std::size_t r = 0; o.fleet.enabled() && r < services.bottoms.size(); ++r) {
    b_args.insert(b_args.end(), {"--replica", std::to_string(services.bottoms[r]->port())});
  }
  auto b = StartService(mode, o, "B", std::move(b_args));
  if (!b.ok()) return b.status();
  services.relay = std::move(b).value();
  auto a = StartService(mode, o, "A", {"--downstream", std::to_string(services.relay->port())});
  if (!a.ok()) return a.status();
  services.entry = std::move(a).value();
  return services;
}

// Every replica's ledger once it settled, replica 0 first.
Result<std::vector<BottomSnapshot>> ReadLedgers(const Services& s, const DemoDriver& driver) {
  std::vector<BottomSnapshot> ledgers;
  for (const auto& c : s.bottoms) {
    const int port = c->port();
    Result<BottomSnapshot> ledger = ReadSettledLedger([&] { return driver.read_ledger(port); }, kDrainLimit);
    if (!ledger.ok()) return ledger.status();
    ledgers.push_back(std::move(ledger).value());
  }
  return ledgers;
}

Result<ModeReport> RunMode(Mode mode, const DemoOptions& o, const DemoDriver& driver, std::FILE* progress) {
  const std::string name(ModeName(mode));
  std::fprintf(progress, "%s: starting services A -> B -> C%s\n", name.c_str(),
               o.fleet.enabled() ? (" x " + std::to_string(o.fleet.replicas)).c_str() : "");
  Result<Services> services = StartServices(mode, o);
  if (!services.ok()) return services.status();
  const std::vector<Phase> phases = o.Phases();
  const EntrySend entry_send = driver.entry(mode, services->entry->port());
  // Each replica of C keeps its own idempotency store: a fleet gets no charges (docs/demo.md).
  const LoadPlan plan{.rate = o.rate,
                      .phases = phases,
                      .seed = o.seed,
                      .charges = !o.fleet.enabled(),
                      .start = Clock::Real().Now() + 100ms};
  const std::int64_t start_unix_ms = http::UnixNowMs() + 100;

  const PhaseFn on_phase = [&](std::size_t p) {
    std::fprintf(progress, "%s: %s\n", name.c_str(), phases[p].name.c_str());
  };
  const SendFn send = [&](const Operation& op) { return entry_send(op, phases[op.phase].name); };
  const std::vector<OperationResult> results = RunOpenLoop(plan, send, on_phase);
  std::fprintf(progress, "%s: every operation answered; reading C's ledger\n", name.c_str());
  Result<std::vector<BottomSnapshot>> ledgers = ReadLedgers(*services, driver);
  if (!ledgers.ok()) return ledgers.status();
  ModeReport report = Summarize(mode, phases, results, MergeSnapshots(*ledgers), start_unix_ms);
  if (!o.fleet.enabled()) return report;
  std::optional<std::vector<ReplicaChange>> changes;
  if (mode == Mode::kStormguard) {
    Result<std::vector<ReplicaChange>> log = ReadReplicaLog(services->relay->port());
    if (!log.ok()) return log.status();
    changes = std::move(log).value();
  }
  const std::string gray_endpoint = "127.0.0.1:" + std::to_string(services->bottoms[0]->port());
  report.gray = SummarizeGray(phases, *ledgers, changes, gray_endpoint, start_unix_ms);
  return report;
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
  DemoReport report{
      .rate = options.rate, .phases = options.Phases(), .transport = options.transport, .fleet = options.fleet};
  for (Mode mode : ModesOf(options.transport)) {
    Result<ModeReport> m = RunMode(mode, options, driver, progress);
    if (!m.ok()) return m.status();
    report.modes.push_back(std::move(m).value());
  }
  report.wall = Clock::Real().Now() - start;
  return report;
}

}  // namespace stormguard::demo
