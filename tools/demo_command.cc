// `stormguard demo`: three real HTTP services on loopback, a retry storm with
// naive retries and none with stormguard, side by side. `demo-service` is
// the hidden subcommand the demo starts its services with.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "duration_flag.h"
#include "number_flag.h"

#ifdef STORMGUARD_CLI_HAS_DEMO
#include "demo/demo_runner.h"
#include "demo/service.h"
#endif
#ifdef STORMGUARD_CLI_HAS_GRPC_DEMO
#include "demo/grpc/grpc_demo.h"
#endif

namespace stormguard::cli {

#ifdef STORMGUARD_CLI_HAS_DEMO
namespace {

using namespace std::chrono_literals;

struct DemoFlags {
  demo::DemoOptions options;
  Duration soak{};  // copied into options.soak when --soak is given
  std::string transport = "http";
  bool json = false;
  std::string svg = "stormguard-demo.svg";
  std::string gray_mode = "slow";
};

struct ServiceFlags {
  std::string role, mode, transport = "http";
  int downstream = 0;
  int port = 0;
  std::uint64_t seed = 1;
  std::vector<std::string> outage_phases;
  std::vector<int> replica_ports;
  demo::FleetOptions gray;  // its mode, share and latency
  std::string gray_mode = "slow";
  std::vector<std::string> gray_phases;
  int max_lifetime_s = 120;
  demo::ConfigSourceFlags config;
};

// --config, --etcd and --key: where the stormguard mode's policies come
// from while it runs (the compiled-in stormguard.json until then).
void AddConfigSourceOptions(CLI::App& cmd, demo::ConfigSourceFlags& config) {
  CLI::Option* file = cmd.add_option("--config", config.file,
                                     "follow this JSON file (polled every 100ms) instead of the built-in policies")
                          ->check(CLI::ExistingFile);
  CLI::Option* etcd =
      cmd.add_option("--etcd", config.etcd, "follow the policies at --key in this etcd (http://host:port)");
  etcd->excludes(file);
  cmd.add_option("--key", config.key, "the etcd key holding the whole JSON document (with --etcd)");
  cmd.add_option("--cacert", config.cacert, "the CA etcd's certificate must chain to (https://)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--cert", config.cert, "this client's certificate, for an etcd with --client-cert-auth")
      ->check(CLI::ExistingFile);
  cmd.add_option("--cert-key", config.cert_key, "the private key of --cert")->check(CLI::ExistingFile);
  cmd.add_option("--user", config.user, "etcd authentication: the user (with --password-file)");
  cmd.add_option("--password-file", config.password_file, "etcd authentication: a file holding the password")
      ->check(CLI::ExistingFile);
}

// --gray-mode, --gray-share and --gray-latency: how replica 0 of C turns
// gray (the demo's flags, handed on to that replica's service).
std::vector<CLI::Option*> AddGrayOptions(CLI::App& cmd, demo::FleetOptions& fleet, std::string& mode) {
  return {cmd.add_option("--gray-mode", mode, "slow: part of its answers are slow; fail: part are 503s")
              ->check(CLI::IsMember({"slow", "fail"}))
              ->capture_default_str(),
          cmd.add_option("--gray-share", fleet.share, "the share of the gray phase's operations it spoils")
              ->check(FiniteRange(0, 1))
              ->capture_default_str(),
          AddDurationOption(cmd, "--gray-latency", fleet.latency, "how long a slow gray answer takes")};
}

// Refuses a source the flags cannot describe, naming the flag.
demo::ConfigSourceFlags CheckedConfigSource(demo::ConfigSourceFlags config) {
  if (const std::vector<std::string> errors = config.Validate(); !errors.empty()) {
    throw CLI::ValidationError(errors.front());
  }
  for (std::string* path : {&config.file, &config.cacert, &config.cert, &config.cert_key, &config.password_file}) {
    if (!path->empty()) *path = std::filesystem::absolute(*path).string();  // every service is told the same file
  }
  return config;
}

// The longest lifetime a service takes: a day, far beyond three phases of
// demo::kMaxPhase and the slack.
constexpr int kMaxServiceLifetimeS = 24 * 3600;

// Phases long enough to hold an operation, and at most demo::kMaxPhase.
CLI::Validator PhaseLength() {
  static_assert(demo::kMaxPhase == 1h, "the message below names the bound");
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const Result<Duration> d = ParseDuration(text);
        if (!d.ok() || (*d >= 500ms && *d <= demo::kMaxPhase)) return "";  // DurationValidator reports garbage
        return "'" + text + "' is not between 500ms and 1h";
      },
      "", "phase length");
}

// Writes `text` to a temporary file next to `path`, then renames it over
// `path`: a reader never sees half a file, and a failed write leaves none.
bool WriteFileAtomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

// The transports this binary can serve: gRPC only where it was built with it.
std::vector<std::string> Transports() {
#ifdef STORMGUARD_CLI_HAS_GRPC_DEMO
  return {"http", "grpc"};
#else
  return {"http"};
#endif
}

demo::DemoDriver Driver(demo::Transport transport) {
#ifdef STORMGUARD_CLI_HAS_GRPC_DEMO
  if (transport == demo::Transport::kGrpc) return demo::GrpcDriver();
#endif
  (void)transport;
  return demo::HttpDriver();
}

int RunService(demo::Transport transport, const demo::ServiceOptions& options) {
#ifdef STORMGUARD_CLI_HAS_GRPC_DEMO
  if (transport == demo::Transport::kGrpc) return demo::RunGrpcService(options);
#endif
  (void)transport;
  return demo::RunService(options);
}

void RunDemoCommand(const DemoFlags& f, bool soak_given) {
  const std::filesystem::path svg = std::filesystem::absolute(f.svg);
  // Say so before a run of half a minute, not after it; the file itself is
  // made only once the run succeeded.
  const std::filesystem::path dir = svg.parent_path();
  if (::access(dir.c_str(), W_OK) != 0 || std::filesystem::is_directory(svg)) {
    throw CLI::ValidationError("--svg", "cannot write " + svg.string());
  }
  demo::DemoOptions options = f.options;
  if (soak_given) options.soak = f.soak;
  options.transport = *demo::ParseTransport(f.transport);
  Result<demo::DemoReport> report = demo::RunDemo(options, stderr, Driver(options.transport));
  if (!report.ok()) {
    std::fprintf(stderr, "stormguard demo: %s\n", report.status().ToString().c_str());
    std::exit(1);
  }
  const bool wrote = WriteFileAtomically(svg, demo::TimelineSvg(*report));
  if (f.json) {
    std::printf("%s\n", demo::ReportJson(*report).dump(2).c_str());
  } else {
    std::fputs(demo::FormatTables(*report).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!wrote) {
    std::fprintf(stderr, "stormguard demo: cannot write the timeline to %s\n", svg.c_str());
    std::exit(1);
  }
  std::fprintf(f.json ? stderr : stdout, "timeline: %s\n", svg.c_str());
}

void RegisterService(CLI::App& app) {
  auto f = std::make_shared<ServiceFlags>();
  CLI::App* cmd = app.add_subcommand("demo-service", "one service of `stormguard demo` (started by it)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--role", f->role, "A, B or C")->required()->check(CLI::IsMember({"A", "B", "C"}));
  cmd->add_option("--mode", f->mode, "naive, grpc_native (gRPC only) or stormguard")
      ->required()
      ->check(CLI::IsMember({"naive", "grpc_native", "stormguard"}));
  cmd->add_option("--transport", f->transport, "http or grpc")->check(CLI::IsMember(Transports()));
  cmd->add_option("--downstream", f->downstream, "port of the next service (A, B)")->check(CLI::Range(1, 65535));
  cmd->add_option("--port", f->port, "port to listen on (default: any free one)")->check(CLI::Range(1, 65535));
  AddSeedOption(*cmd, f->seed, "seed of C's failures");
  cmd->add_option("--outage-phase", f->outage_phases, "C: operations of this phase find it down (repeatable)");
  cmd->add_option("--gray-phase", f->gray_phases, "C: operations of this phase find it gray (repeatable)");
  AddGrayOptions(*cmd, f->gray, f->gray_mode);
  cmd->add_option("--replica", f->replica_ports, "B: a port of C's replicas (repeatable; with several)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--max-lifetime", f->max_lifetime_s, "seconds until it stops by itself")
      ->check(CLI::Range(1, kMaxServiceLifetimeS));
  AddConfigSourceOptions(*cmd, f->config);
  cmd->callback([f] {
    if (f->role != "C" && f->downstream == 0) throw CLI::RequiredError("--downstream (for --role A and B)");
    const demo::Transport transport = *demo::ParseTransport(f->transport);
    if (f->mode == "grpc_native" && transport != demo::Transport::kGrpc) {
      throw CLI::ValidationError("--mode", "grpc_native needs --transport grpc");
    }
    std::exit(RunService(transport, {.role = f->role[0],
                                     .mode = *demo::ParseMode(f->mode),
                                     .downstream_port = f->downstream,
                                     .port = f->port,
                                     .seed = f->seed,
                                     .outage_phases = f->outage_phases,
                                     .gray = {.phases = f->gray_phases,
                                              .mode = *demo::ParseGrayMode(f->gray_mode),
                                              .share = f->gray.share,
                                              .latency = f->gray.latency},
                                     .replica_ports = f->replica_ports,
                                     .max_lifetime = std::chrono::seconds(f->max_lifetime_s),
                                     .config = CheckedConfigSource(f->config)}));
  });
}

}  // namespace

void RegisterDemoCommand(CLI::App& app) {
  auto f = std::make_shared<DemoFlags>();
  CLI::App* cmd = app.add_subcommand(
      "demo", "run services A -> B -> C on loopback and compare naive retries with stormguard, phase by phase");
  demo::DemoOptions& o = f->options;
  cmd->add_option("--rate", o.rate, "requests per second offered to A")
      ->check(FiniteRange(1, 500))
      ->capture_default_str();
  CLI::Option* healthy =
      AddDurationOption(*cmd, "--healthy", o.healthy, "length of the healthy phase")->check(PhaseLength());
  CLI::Option* down = AddDurationOption(*cmd, "--down", o.down, "how long C is down")->check(PhaseLength());
  CLI::Option* recovered = AddDurationOption(*cmd, "--recovered", o.recovered, "length of the phase after C recovered")
                               ->check(PhaseLength());
  CLI::Option* soak = AddDurationOption(*cmd, "--soak", f->soak,
                                        "a soak run instead of the three phases: one healthy phase \"soak\" this long")
                          ->check(PhaseLength())
                          ->default_str("")
                          ->excludes(healthy, down, recovered);
  AddSeedOption(*cmd, o.seed, "seed of the load mix and C's failures");
  cmd->add_option("--transport", f->transport,
                  "http (naive vs stormguard) or grpc (naive vs grpc_native, gRPC's own retries, vs stormguard)")
      ->check(CLI::IsMember(Transports()))
      ->capture_default_str();
  cmd->add_flag("--json", f->json, "print one JSON object instead of the tables");
  cmd->add_option("--metrics-port", o.metrics_port,
                  "serve the stormguard mode's Prometheus metrics at http://127.0.0.1:N/metrics while the demo runs")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--svg", f->svg, "where to write the SVG timeline")->capture_default_str();
  AddConfigSourceOptions(*cmd, o.config);
  cmd->add_option("--replicas", o.fleet.replicas,
                  "C as N processes; with 2 or more the phases are healthy, gray (replica 0 turns gray), healed")
      ->check(CLI::Range(1, demo::kMaxReplicas))
      ->capture_default_str();
  std::vector<CLI::Option*> gray = AddGrayOptions(*cmd, o.fleet, f->gray_mode);
  gray.push_back(
      AddDurationOption(*cmd, "--gray", o.fleet.gray, "length of the gray phase (--replicas)")->check(PhaseLength()));
  gray.push_back(AddDurationOption(*cmd, "--healed", o.fleet.healed, "length of the phase after it healed (--replicas)")
                     ->check(PhaseLength()));
  cmd->callback([f, soak, down, recovered, gray] {
    f->options.config = CheckedConfigSource(f->options.config);
    f->options.fleet.mode = *demo::ParseGrayMode(f->gray_mode);
    const demo::GivenFlags given{
        .down = down->count() > 0,
        .recovered = recovered->count() > 0,
        .soak = soak->count() > 0,
        .gray_flags = std::any_of(gray.begin(), gray.end(), [](const CLI::Option* g) { return g->count() > 0; }),
        .grpc = f->transport == "grpc"};
    std::vector<std::string> errors = demo::FleetConflicts(f->options.fleet, given);
    for (std::string& e : f->options.fleet.Validate()) errors.push_back(std::move(e));
    if (!errors.empty()) throw CLI::ValidationError(errors.front());
    RunDemoCommand(*f, soak->count() > 0);
  });
  RegisterService(app);
}

#else  // built without the HTTP adapter

void RegisterDemoCommand(CLI::App& app) {
  app.add_subcommand("demo", "unavailable: this stormguard was built without the HTTP adapter")->callback([] {
    std::fprintf(stderr, "stormguard demo: built without the HTTP adapter (stormguard_http)\n");
    std::exit(1);
  });
}

#endif

}  // namespace stormguard::cli
