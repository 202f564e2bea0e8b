// tools/demo/demo_runner.h: runs `stormguard demo` end to end.
//
//   Result<DemoReport> r = RunDemo(DemoOptions{}, stderr);   // progress lines on stderr
//   if (r.ok()) std::fputs(FormatTables(*r).c_str(), stdout);
//
// For each mode of the transport (naive, [grpc_native,] stormguard): starts fresh services C, B, A as
// child processes on loopback (C told which phases are outages; with
// --replicas, C's replicas and B told which are theirs, replica 0 which
// phase is gray), offers the load of every phase to A, waits until every
// operation and C's last piece of work have finished, reads every C's
// ledger (and B's replica log, stormguard) and stops the services. While it runs, SIGINT/SIGTERM/SIGHUP stop the
// services first (InterruptGuard).
//
// Call from the main thread: the services die with the thread that started
// them (PR_SET_PDEATHSIG).
#pragma once

#include <cstdio>
#include <functional>

#include "demo/bottom_ledger.h"
#include "demo/demo_options.h"
#include "demo/load_generator.h"
#include "demo/report.h"
#include "stormguard/core/result.h"

namespace stormguard::demo {

// What the load generator does differently per transport: send one
// operation to A the way a mode's callers call (true when it succeeded),
// and read C's ledger.
using EntrySend = std::function<bool(const Operation& op, const std::string& phase)>;
struct DemoDriver {
  std::function<EntrySend(Mode mode, int entry_port)> entry;
  std::function<Result<BottomSnapshot>(int bottom_port)> read_ledger;
};

// The services speak HTTP: requests to A's GET /stock and POST /charge.
DemoDriver HttpDriver();

// `driver` must match options.transport.
Result<DemoReport> RunDemo(const DemoOptions& options, std::FILE* progress, const DemoDriver& driver = HttpDriver());

}  // namespace stormguard::demo
