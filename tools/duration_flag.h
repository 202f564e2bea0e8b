// tools/duration_flag.h: durations on the command line ("100ms", "1.5s", "2m").
//
// A duration is what a configuration file takes (config/duration_text.h,
// the same parser): a non-negative decimal number followed by one unit, ns,
// us, ms, s, m or h ("250us", "1.5s", "0.25h"), exact to the nanosecond;
// and a bare "0" is zero. Unlike a file, a flag takes no "inf" and at most
// kMaxFlagDuration. Used by every subcommand that takes a time, so they all
// accept the same forms, and stormguard::FormatDuration
// (core/duration_format.h) prints them in a form ParseDuration reads back
// ("100ms", "1.5s", "0s"):
//
//   Duration base = 100ms;
//   AddDurationOption(cmd, "--base", base, "first wait");
//   // `--base abc` fails the parse with "--base: must be a duration such as
//   // \"250ms\", \"1.5s\" (units ns, us, ms, s, m, h), got \"abc\""
//
// No duration flag takes more than kMaxFlagDuration: every real use fits,
// and sums of a few such flags stay far from overflowing a Duration.
//
// Thread safety: plain functions; the option writes `target` during parse.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "stormguard/core/duration_format.h"
#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::cli {

inline constexpr Duration kMaxFlagDuration = std::chrono::hours(1000);

// The duration `text` spells, or INVALID_ARGUMENT with the reason (no unit,
// an unknown unit, a sign, garbage, finer than 1ns, more than
// kMaxFlagDuration, more than 32 characters).
Result<Duration> ParseDuration(std::string_view text);

// A decimal with at most three digits after the point and no trailing
// zeros: 2, 1.5, 37.422 (for tables of durations in ms and of factors).
std::string FormatNumber(double value);

// A CLI11 check whose message (ParseDuration's reason) CLI11 prefixes with
// the option's name: "--cap: must be at most 1000h, got \"2000h\"".
CLI::Validator DurationValidator();

// Adds `name` as a duration option that stores into `target`, showing the
// current value of `target` as the default.
CLI::Option* AddDurationOption(CLI::App& app, const std::string& name, Duration& target,
                               const std::string& description);

}  // namespace stormguard::cli
