// stormguard/core/duration_format.h: a duration as people read it, in
// status messages, pipeline descriptions and help texts.
//
//   FormatDuration(250ms);              // "250ms"
//   FormatDuration(1500ms);             // "1.5s"
//   FormatDuration(90s);                // "1.5m"
//   FormatDuration(1234567ns);          // "1.235ms"
//   FormatDuration(Duration::zero());   // "0s"
//   FormatDuration(kInfiniteDuration);  // "inf"
//
// The largest unit the duration reaches (h, m, s, ms, us, ns: the units
// the CLI's duration flags accept), at most three decimals, no trailing
// zeros; zero is "0s", so every finite non-negative output is a valid
// CLI duration; a negative duration gets a "-". Status messages,
// Pipeline::Describe() and the CLI's help print every duration this one way.
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stormguard/core/time.h"

namespace stormguard {

// The units of every duration stormguard prints or reads (this function,
// the configuration's duration strings, the CLI's flags), largest first.
struct DurationUnit {
  std::string_view name;
  std::int64_t ns;
};
inline constexpr DurationUnit kDurationUnits[] = {{"h", 3'600'000'000'000}, {"m", 60'000'000'000}, {"s", 1'000'000'000},
                                                  {"ms", 1'000'000},        {"us", 1'000},         {"ns", 1}};

std::string FormatDuration(Duration d);

}  // namespace stormguard
