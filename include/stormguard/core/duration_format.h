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

#include <string>

#include "stormguard/core/time.h"

namespace stormguard {

std::string FormatDuration(Duration d);

}  // namespace stormguard
