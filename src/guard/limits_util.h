// src/guard/limits_util.h (private): what the rate limiter, the bulkhead and
// the adaptive limiter share: reporting events and printing durations in
// rejection messages.
#pragma once

#include <string>
#include <string_view>

#include "stormguard/core/events.h"
#include "stormguard/core/time.h"

namespace stormguard::guard_internal {

inline void Notify(Listener* listener, const Event& event) noexcept {
  if (listener != nullptr) listener->OnEvent(event);
}

// "0", "850ns", "12.5us", "3.2ms", "1.1s": one decimal, trailing ".0" dropped.
std::string FormatDuration(Duration d);

// A rate or a ratio with up to 6 significant digits: "100", "0.5", "1e+09".
std::string FormatNumber(double value);

}  // namespace stormguard::guard_internal
