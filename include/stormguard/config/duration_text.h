// stormguard/config/duration_text.h: durations as configuration files spell them.
//
// Our format: a non-negative decimal and one unit, "250ms", "1.5s", "2m",
// "100us", "1h", "10ns"; "0s" is zero and "inf" is kInfiniteDuration (no
// limit). Bare numbers, signs, exponents, NaN, more than 32 characters, a
// value finer than a nanosecond and anything above the limit's `max`
// (kMaxConfigDuration for a file) are refused with the reason. The
// configuration and the CLI's flags (with their own limits) read durations
// with this one parser:
//
//   ParseDurationText("1.5s");   // 1500ms
//   ParseDurationText("250");    // error "must be a duration such as \"250ms\", ..., got \"250\""
//   ParseDurationText("inf", {.max = 1000h, .infinite = false});  // error: no "inf" here
//   FormatDurationText(1500ms);  // "1.5s": exact, so it parses back to the same value
//
// gRPC's form (proto3 JSON Duration): decimal seconds with an "s" suffix and
// up to nine decimals, "0.1s", "-2s", "1.000000001s". proto3 allows up to
// 315576000000s; above kMaxConfigDuration (604800s) it is refused here too
// ("must be at most 604800s (168h)"), and a negative one saturates there.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard::config {

// Longer than any option needs (a week), far below a Duration's overflow.
inline constexpr Duration kMaxConfigDuration = std::chrono::hours(24 * 7);
inline constexpr std::size_t kMaxDurationTextLength = 32;

// What a reader of durations takes: at most `max`, and "inf" when `infinite`.
struct DurationTextLimits {
  Duration max = kMaxConfigDuration;
  bool infinite = true;
};

// The duration, or INVALID_ARGUMENT whose message is the reason alone
// ("must be a duration ...", "must not be negative, got ..."), for the
// caller to prefix with the field's path or the flag's name.
Result<Duration> ParseDurationText(std::string_view text, DurationTextLimits limits = {});
// Exact: the largest unit that keeps at most three decimals ("1.5s", "90ms",
// "1500001ns"); "0s" for zero, "inf" for kInfiniteDuration.
std::string FormatDurationText(Duration d);

// A proto3 JSON Duration ("0.1s"); may be negative. Messages follow gRPC
// C-core: "Not a duration (no s suffix)", "Not a duration (not a number of seconds)".
Result<Duration> ParseProtoDuration(std::string_view text);

}  // namespace stormguard::config
