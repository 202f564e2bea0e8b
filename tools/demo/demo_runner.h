// tools/demo/demo_runner.h: runs `stormguard demo` end to end.
//
//   Result<DemoReport> r = RunDemo(DemoOptions{}, stderr);   // progress lines on stderr
//   if (r.ok()) std::fputs(FormatTables(*r).c_str(), stdout);
//
// For each mode (naive, then stormguard): starts fresh services C, B, A as
// child processes on loopback (C told which phases are outages), offers the
// load of every phase to A, waits until every operation and C's last piece
// of work have finished, reads C's ledger and stops the services. While it runs, SIGINT/SIGTERM/SIGHUP stop the services
// first (InterruptGuard).
//
// Call from the main thread: the services die with the thread that started
// them (PR_SET_PDEATHSIG).
#pragma once

#include <cstdio>

#include "demo/demo_options.h"
#include "demo/report.h"
#include "stormguard/core/result.h"

namespace stormguard::demo {

Result<DemoReport> RunDemo(const DemoOptions& options, std::FILE* progress);

}  // namespace stormguard::demo
