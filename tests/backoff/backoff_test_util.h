// Helpers shared by the backoff tests: matchers for jittered waits, and
// schedules drawn from a seeded Random.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "stormguard/backoff/backoff.h"

namespace stormguard::backoff_testing {
using namespace std::chrono_literals;

inline std::string Ms(Duration d) { return std::to_string(ToMillis(d)) + " ms"; }

// A wait inside [lo, hi], inclusive.
MATCHER_P2(IsWithin, lo, hi, "is within [" + Ms(lo) + ", " + Ms(hi) + "]") {
  *result_listener << "which is " << Ms(arg);
  return arg >= lo && arg <= hi;
}

// Draws that reach both the lowest and the highest quarter of [lo, hi]:
// jitter that really spreads, not one that only stays in bounds.
MATCHER_P2(SpreadsAcross, lo, hi, "reaches both outer quarters of [" + Ms(lo) + ", " + Ms(hi) + "]") {
  const Duration quarter = (hi - lo) / 4;
  const bool low = std::any_of(arg.begin(), arg.end(), [&](Duration d) { return d <= lo + quarter; });
  const bool high = std::any_of(arg.begin(), arg.end(), [&](Duration d) { return d >= hi - quarter; });
  *result_listener << "low quarter " << (low ? "hit" : "missed") << ", high quarter " << (high ? "hit" : "missed");
  return low && high;
}

inline Backoff Make(const BackoffOptions& o) {
  Result<Backoff> b = Backoff::Create(o);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return std::move(b).value();
}

// The first `retries` waits, each drawn from the wait before it.
inline std::vector<Duration> Schedule(const Backoff& b, int retries, Random& rng) {
  std::vector<Duration> waits;
  Duration previous = Duration::zero();
  for (int n = 1; n <= retries; ++n) waits.push_back(previous = b.Next(n, previous, rng));
  return waits;
}

inline std::vector<Duration> Schedule(const Backoff& b, int retries) {
  Random rng(42);
  return Schedule(b, retries, rng);
}

inline std::vector<Duration> Draws(const Backoff& b, int retry, int count, Random& rng) {
  std::vector<Duration> out;
  for (int i = 0; i < count; ++i) out.push_back(b.Next(retry, Duration::zero(), rng));
  return out;
}

inline Duration Sum(const std::vector<Duration>& v) { return std::accumulate(v.begin(), v.end(), Duration::zero()); }

constexpr Duration kDay = std::chrono::hours(24);
constexpr Jitter kAllJitters[] = {Jitter::kNone,         Jitter::kFull,         Jitter::kEqual,
                                  Jitter::kDecorrelated, Jitter::kProportional, Jitter::kUniform};
constexpr BackoffKind kAllKinds[] = {BackoffKind::kConstant, BackoffKind::kLinear, BackoffKind::kExponential};

}  // namespace stormguard::backoff_testing
