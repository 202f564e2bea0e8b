// tools/demo/demo_options.h: what `stormguard demo` runs: its modes, three
// phases, or one long healthy phase (a soak run).
//
//   DemoOptions o{.rate = 50, .healthy = 6s, .down = 4s, .recovered = 6s};
//   for (const Phase& p : o.Phases()) ...   // healthy, down, recovered
//   DemoOptions{.rate = 200, .soak = 120s}.Phases();  // one phase, "soak"
//   DemoOptions{.fleet = {.replicas = 3}}.Phases();   // healthy, gray, healed
//
// Every mode runs the same phases against fresh services: "naive" retries the
// way docs/retry-amplification.md warns against, "stormguard" uses the library
// at every hop; over gRPC, "grpc_native" leaves the retries to gRPC's own
// retryPolicy and retryThrottling.
// Thread safety: plain values.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/time.h"

namespace stormguard::demo {

enum class Mode { kNaive, kGrpcNative, kStormguard };

std::string_view ModeName(Mode mode) noexcept;  // "naive", "grpc_native", "stormguard"
std::optional<Mode> ParseMode(std::string_view name) noexcept;

// What the services speak: HTTP/1.1 (naive, stormguard) or gRPC (all three).
enum class Transport { kHttp, kGrpc };
std::string_view TransportName(Transport transport) noexcept;  // "http", "grpc"
std::optional<Transport> ParseTransport(std::string_view name) noexcept;
std::vector<Mode> ModesOf(Transport transport);

struct Phase {
  std::string name;  // "healthy", "down", "recovered", "soak", "gray" or "healed"
  Duration length{};
  bool bottom_down = false;  // C answers every request with 503 at once
  // No load is offered for this long before the phase starts.
  Duration settle{};
  bool gray = false;  // replica 0 of C turns gray (FleetOptions)
};

// When each phase starts and ends, since the start of the load (settles included).
struct PhaseSpan {
  Duration start{}, end{};
};
std::vector<PhaseSpan> PhaseSpans(const std::vector<Phase>& phases);

// The pause before an outage: every operation of the phase before it (at
// most stormguard's 1 s entry budget) ends first, so none of them loses its
// retry to a retry budget the outage has already drained. The end of the
// outage has no pause: the recovery from it is what the last phase shows.
inline constexpr Duration kSettleBeforeOutage = std::chrono::seconds(1);

// The longest phase: long enough for a soak run, short enough that a typo
// does not start a run of days.
inline constexpr Duration kMaxPhase = std::chrono::hours(1);

// How long each service process may live before it stops by itself: the
// phases, plus time to start the services, drain the last operations and
// read C's ledger.
inline constexpr Duration kLifetimeSlack = std::chrono::seconds(60);
Duration ServiceLifetime(const std::vector<Phase>& phases);

// The demo's (and each demo service's) --config, or --etcd and --key with
// their TLS and authentication flags.
struct ConfigSourceFlags {
  std::string file;  // --config: a JSON file, polled every kFilePoll (live_config.h)
  std::string etcd;  // --etcd: an etcd endpoint (with --key)
  std::string key;   // --key: the etcd key that holds the whole document
  // An etcd that checks who its clients are (https:// endpoints): PEM files
  // for --cacert, --cert and --cert-key; etcd authentication as --user with
  // the password in --password-file (never on a command line, which every
  // user of the host can read).
  std::string cacert, cert, cert_key;
  std::string user, password_file;

  bool empty() const noexcept { return file.empty() && etcd.empty(); }
  // Empty when usable; else each problem, naming the flag.
  std::vector<std::string> Validate() const;
  // The flags that hand this source on to a service process.
  std::vector<std::string> Args() const;
};

// How a gray replica misbehaves: part of its answers are slow, or 503s.
enum class GrayMode { kSlow, kFail };
std::string_view GrayModeName(GrayMode mode) noexcept;  // "slow", "fail"
std::optional<GrayMode> ParseGrayMode(std::string_view name) noexcept;

// C as `replicas` processes (--replicas). With more than one the phases are
// "healthy", "gray" (replica 0 answers `share` of the phase's operations
// after `latency`, or with a 503) and "healed"; the load is GET /stock only,
// since each C keeps its own idempotency store (docs/demo.md says why).
struct FleetOptions {
  int replicas = 1;  // 1: the three-phase demo with one C
  Duration gray = std::chrono::seconds(8);
  Duration healed = std::chrono::seconds(12);
  GrayMode mode = GrayMode::kSlow;
  double share = 0.5;                                  // of the gray phase's operations, at replica 0
  Duration latency = std::chrono::milliseconds(1200);  // of a slow gray answer

  bool enabled() const noexcept { return replicas > 1; }
  // Empty when usable; else each problem, naming the flag.
  std::vector<std::string> Validate() const;
};
inline constexpr int kMaxReplicas = 8;

// The flags that do not go with the fleet's choice, each named: the outage
// phases (--down, --recovered) and --soak with --replicas > 1, the gray
// flags without it, and gRPC (the replicas run over HTTP only).
struct GivenFlags {
  bool down = false, recovered = false, soak = false;
  bool gray_flags = false;  // --gray, --healed, --gray-mode, --gray-share or --gray-latency
  bool grpc = false;
};
std::vector<std::string> FleetConflicts(const FleetOptions& fleet, const GivenFlags& given);

struct DemoOptions {
  double rate = 50;  // logical requests per second offered to A
  Duration healthy = std::chrono::seconds(6);
  Duration down = std::chrono::seconds(4);
  Duration recovered = std::chrono::seconds(6);
  // Set: a soak run, one healthy phase "soak" of this length instead of the
  // three above.
  std::optional<Duration> soak;
  std::uint64_t seed = 1;
  Transport transport = Transport::kHttp;
  // Serves the stormguard mode's metrics at http://127.0.0.1:N/metrics while
  // the demo runs (metrics_server.h); 0: not served.
  int metrics_port = 0;
  // The binary that serves `demo-service` (the running CLI itself).
  std::string self_exe = "/proc/self/exe";
  // The stormguard mode's services follow this source (live_config.h);
  // empty: the compiled-in stormguard.json.
  ConfigSourceFlags config;
  FleetOptions fleet;

  std::vector<Phase> Phases() const;
};

}  // namespace stormguard::demo
