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
  FleetOptions fleet;  // C's replicas and how replica 0 turns gray
};

// One table per phase, a row per mode, then the recovery times (when a
// phase had C down).
std::string FormatTables(const DemoReport& report);

// {"naive": {"healthy": {"offered": ..., "reached_bottom": ..., "amplification": ...,
//   "success_rate": ..., "p50_ms": ..., "p99_ms": ..., "p999_ms": ..., "orphan_ratio": ...,
//   "duplicate_effects": ...}, "down": {...}, "recovered": {..., "recovery_ms": ...}},
//  "stormguard": {...}} (and "grpc_native" over gRPC); recovery_ms (null when never) sits in the phase that
// follows the outage; with a fleet of C each mode has "gray_replica" (GrayJson).
nlohmann::json ReportJson(const DemoReport& report);

// A fleet of C: the gray phase, a row per mode (success, latency, attempts
// at C per request, the gray replica's share after kGrayGrace, when it was
// ejected and readmitted, when it had its share back); "" without one.
std::string FormatGrayTable(const DemoReport& report);
// {"phase", "gray_attempts", "all_attempts", "gray_share", "healthy_share", "share_back_ms",
//  "ejected_ms", "readmitted_ms"}
// (the times null when never; the last two absent when the mode has no replica log).
nlohmann::json GrayJson(const GraySummary& gray);

// Attempts reaching C per second over time, one line per mode, phases shaded.
std::string TimelineSvg(const DemoReport& report);

}  // namespace stormguard::demo
