// tools/simulate_output.h: what every `stormguard simulate` scenario
// shares: --seed, --json, --series and --svg, the progress bar, and how a
// report or an error is printed.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "simulate_report.h"
#include "stormguard/core/result.h"

namespace stormguard::cli::simulate {

struct Output {
  bool json = false;
  bool series = false;
  std::string svg;
};

// --seed, --json, --series and --svg: what every scenario takes.
void AddCommonFlags(CLI::App& cmd, Output& out, std::uint64_t& seed);

// A library validation error ("cap: must be at least base; ...") as a
// one-line flag error ("--cap: must be at least base", exit status 2); any
// other failure is printed as it is (exit status 1).
[[noreturn]] void FailOn(const Status& s);

void Emit(const Output& out, const Report& r);

// A progress bar on stderr, only for a person watching a terminal.
std::function<void(double)> ProgressBar(const Output& out);

// Clears the progress bar (when there was one).
void ClearProgress(const Output& out);

// Clears the progress bar, then prints the run's report or its error.
template <class R>
void Show(const Output& out, const Result<R>& r, Report (*report)(const R&, bool)) {
  ClearProgress(out);
  if (!r.ok()) FailOn(r.status());
  Emit(out, report(*r, out.series));
}

// `stormguard simulate fleet` (simulate_fleet_command.cc).
void AddFleet(CLI::App& parent);
// `stormguard simulate fleet-limit` (simulate_fleet_limit_command.cc).
void AddFleetLimit(CLI::App& parent);
// `stormguard simulate throttle` (simulate_throttle_command.cc).
void AddThrottle(CLI::App& parent);
// `stormguard simulate hedge` (simulate_hedge_command.cc).
void AddHedge(CLI::App& parent);

}  // namespace stormguard::cli::simulate
