// tests/testkit/time_points.h: the instant tests start their virtual clocks
// at: one hour past the epoch, on a second boundary, so "kT0 + 30s" reads
// as what it is and no arithmetic goes below zero.
#pragma once

#include <chrono>

#include "stormguard/core/time.h"

namespace stormguard::testkit {

inline const TimePoint kT0 = TimePoint(std::chrono::hours(1));

}  // namespace stormguard::testkit
