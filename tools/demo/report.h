// tools/demo/report.h: the demo's results as tables, JSON and an SVG timeline.
//
//   DemoReport r = ...;                 // from RunDemo (demo_runner.h)
//   std::fputs(FormatTables(r).c_str(), stdout);
//   std::string json = ReportJson(r).dump(2);
//   WriteFile(path, TimelineSvg(r));
//
// Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "demo/demo_options.h"
#include "demo/summary.h"

namespace stormguard::demo {

struct DemoReport {
  double rate = 0;  // operations per second offered to A
  std::vector<Phase> phases;
  std::vector<ModeReport> modes;  // naive, [grpc_native,] stormguard
  Duration wall{};                // the whole run, every mode
  Transport transport = Transport::kHttp;
};

// One table per phase, a row per mode, then the recovery times (when a
// phase had C down).
std::string FormatTables(const DemoReport& report);

// {"naive": {"healthy": {"offered": ..., "reached_bottom": ..., "amplification": ...,
//   "success_rate": ..., "p50_ms": ..., "p99_ms": ..., "p999_ms": ..., "orphan_ratio": ...,
//   "duplicate_effects": ...}, "down": {...}, "recovered": {..., "recovery_ms": ...}},
//  "stormguard": {...}} (and "grpc_native" over gRPC); recovery_ms (null when never) sits in the phase that
// follows the outage.
nlohmann::json ReportJson(const DemoReport& report);

// Attempts reaching C per second over time, one line per mode, phases shaded.
std::string TimelineSvg(const DemoReport& report);

}  // namespace stormguard::demo
