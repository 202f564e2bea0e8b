// tools/render/numbers.h: numbers and durations as the CLI's reports show
// them, in tables (Fixed) and in JSON (Round, Seconds, Millis).
//
//   Fixed(2.5, 2)            // "2.50"
//   Millis(1234567ns)        // 1.235
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "stormguard/core/time.h"

namespace stormguard::render {

// `v` with exactly `decimals` digits after the point.
std::string Fixed(double v, int decimals);
// Seconds / milliseconds as doubles, rounded to `decimals`.
double Seconds(Duration d, int decimals = 3);
double Millis(Duration d, int decimals = 3);
double Round(double v, int decimals);

}  // namespace stormguard::render
