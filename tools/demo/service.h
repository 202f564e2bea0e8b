// tools/demo/service.h: one of the demo's three HTTP services, A -> B -> C.
//
// `stormguard demo` starts each as its own process (`stormguard
// demo-service --role C --mode naive ...`). A and B relay GET /stock and
// POST /charge to the next service; C does the work, fails as
// fault_schedule.h says, and reports what it saw on GET /admin/stats (see
// bottom_ledger.h).
//
//   return RunService({.role = 'B', .mode = Mode::kStormguard, .downstream_port = c_port});
//
// RunService binds 127.0.0.1 on a free port (or on `port`, so a restarted
// service is found where its caller looks), prints "port N" on stdout once
// it accepts connections (after its live configuration, if any, answered
// once), and serves until it is killed, its parent dies
// (the parent sets PR_SET_PDEATHSIG) or max_lifetime passes (alarm()).
// Loopback only.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "demo/demo_options.h"
#include "demo/fault_schedule.h"
#include "demo/live_config.h"

namespace stormguard::demo {

struct ServiceOptions {
  char role = 'C';  // 'A' and 'B' relay to the next service; 'C' is the bottom
  Mode mode = Mode::kNaive;
  int downstream_port = 0;                 // for A and B
  int port = 0;                            // 0: any free port
  std::uint64_t seed = 1;                  // C's fault draws
  std::vector<std::string> outage_phases;  // C: operations of these phases find it down
  GrayFaults gray;                         // C: how it turns gray (replica 0 of a fleet)
  // B: the ports of C's replicas when there are several (the downstream
  // port is the first); it serves GET /admin/replicas (replica_log.h).
  std::vector<int> replica_ports;
  Duration max_lifetime = std::chrono::seconds(120);
  // stormguard mode: where the policies come from after the start (empty:
  // the compiled-in stormguard.json only).
  ConfigSourceFlags config;
};

// Follows options.config into DemoRegistry() (live_config.h); null when
// there is none. Prints why and returns an error status the service exits with.
Result<std::unique_ptr<LiveConfig>> FollowConfig(const ServiceOptions& options);

// Returns the process exit status (only when the server could not start).
int RunService(const ServiceOptions& options);

// The routes of one role; owns their state, so it must outlive the server.
class Service {
 public:
  virtual ~Service() = default;
  virtual void Install(httplib::Server& server) = 0;
};

std::unique_ptr<Service> MakeRelayService(const ServiceOptions& options);
std::unique_ptr<Service> MakeBottomService(const ServiceOptions& options);

}  // namespace stormguard::demo
