// tools/simulate_flags.h: flag helpers shared by the `simulate` scenarios.
//
// Interim: a minimal duration parser ("250ms", "1.5s", "2m"; units ns, us,
// ms, s, m, h) until the shared one in tools/duration_flag.h lands on main;
// then AddDuration should forward to AddDurationOption and this parser go.
//
//   Duration base = 1s;
//   AddDuration(cmd, "--base", base, "first wait");   // "--base: 'x' is not a duration ..."
//
// Thread safety: plain functions; options write their targets during parse.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "stormguard/core/time.h"

namespace stormguard::cli::simflags {

std::optional<Duration> ParseSimDuration(std::string_view text);

CLI::Option* AddDuration(CLI::App& app, const std::string& name, Duration& target, const std::string& help);

// "1.5s", "100ms", "0s": the shortest of s / ms / us with up to 3 decimals.
std::string ShowDuration(Duration d);

}  // namespace stormguard::cli::simflags
