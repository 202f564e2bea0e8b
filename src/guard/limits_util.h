// src/guard/limits_util.h (private): what the rate limiter and the bulkhead
// share: printing durations and rates in rejection messages.
#pragma once

#include <string>
#include <string_view>

#include "stormguard/core/time.h"

namespace stormguard::guard_internal {

// "0", "850ns", "12.5us", "3.2ms", "1.1s": one decimal, trailing ".0" dropped.
std::string FormatDuration(Duration d);

// A rate or a ratio with up to 6 significant digits: "100", "0.5", "1e+09".
std::string FormatNumber(double value);

}  // namespace stormguard::guard_internal
