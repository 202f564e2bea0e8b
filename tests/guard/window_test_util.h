// A check shared by the window and breaker tests: a window's metrics, with
// rates that must be absent below the minimum number of calls.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "stormguard/guard/sliding_window.h"

namespace stormguard::testkit {

// Counts must match exactly; a rate must be absent when `failure_rate` /
// `slow_call_rate` is, and equal (to rounding) when present.
inline void ExpectWindowMetrics(const WindowMetrics& m, const WindowCounts& counts, std::optional<double> failure_rate,
                                std::optional<double> slow_call_rate) {
  EXPECT_EQ(m.calls, counts.calls);
  EXPECT_EQ(m.failures, counts.failures);
  EXPECT_EQ(m.slow_calls, counts.slow_calls);
  ASSERT_EQ(m.failure_rate.has_value(), failure_rate.has_value());
  ASSERT_EQ(m.slow_call_rate.has_value(), slow_call_rate.has_value());
  if (failure_rate) {
    EXPECT_NEAR(*m.failure_rate, *failure_rate, 1e-9);
  }
  if (slow_call_rate) {
    EXPECT_NEAR(*m.slow_call_rate, *slow_call_rate, 1e-9);
  }
}

}  // namespace stormguard::testkit
