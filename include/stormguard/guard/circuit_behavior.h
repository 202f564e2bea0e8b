// stormguard/guard/circuit_behavior.h: the trip rule of a circuit breaker.
//
// Polly v8 keeps "should the circuit break?" (CircuitBehavior) apart from
// the state machine that acts on the answer (CircuitStateController); so
// does stormguard. A CircuitBehavior looks at a window's counts and answers;
// it keeps no state, never sees the clock and never changes the circuit.
// CircuitBreaker (circuit_breaker.h) is the state machine: it owns the
// windows, asks this rule after each recorded call, and moves the state.
//
// The rule (Resilience4j's): with at least `minimum_calls` calls in the
// window, trip when the failure rate or the slow-call rate reaches its
// threshold. Thresholds are fractions in (0, 1] (Resilience4j's percent
// 50 is 0.5) and compare with >=: 50 failures in 100 calls trips 0.5. Each
// threshold is kept in integer millionths and compared as
// failures * 10^6 >= threshold_ppm * calls, so no division or binary
// fraction rounds a rate that sits exactly on the threshold (7 failures in
// 100 calls trips 0.07, though 0.07 * 100 > 7 in doubles).
//
//   CircuitBehavior rule(/*failure_rate_threshold=*/0.5, /*slow_call_rate_threshold=*/0.5);
//   rule.Evaluate({.calls = 100, .failures = 50}, /*minimum_calls=*/100);
//       // == TripReason::kFailureRate
//
// Thread safety: immutable; Evaluate is a pure function.
#pragma once

#include <cstdint>
#include <string_view>

#include "stormguard/guard/sliding_window.h"

namespace stormguard {

enum class TripReason : std::uint8_t { kNone, kFailureRate, kSlowCallRate };

// "none", "failure_rate", "slow_call_rate".
constexpr std::string_view TripReasonName(TripReason r) noexcept {
  switch (r) {
    case TripReason::kNone: return "none";
    case TripReason::kFailureRate: return "failure_rate";
    case TripReason::kSlowCallRate: return "slow_call_rate";
  }
  return "unknown";
}

class CircuitBehavior {
 public:
  // Thresholds as fractions in (0, 1] (CircuitBreakerOptions validates).
  constexpr CircuitBehavior(double failure_rate_threshold, double slow_call_rate_threshold) noexcept
      : failure_ppm_(ToPpm(failure_rate_threshold)), slow_call_ppm_(ToPpm(slow_call_rate_threshold)) {}

  // Whether a window holding `counts` should open the circuit. Below
  // `minimum_calls` calls it never trips; the failure rate is checked first.
  // Exact for up to 9 * 10^12 calls in a window.
  constexpr TripReason Evaluate(const WindowCounts& counts, std::int64_t minimum_calls) const noexcept {
    if (counts.calls <= 0 || counts.calls < minimum_calls) return TripReason::kNone;
    if (counts.failures * kPpm >= failure_ppm_ * counts.calls) return TripReason::kFailureRate;
    if (counts.slow_calls * kPpm >= slow_call_ppm_ * counts.calls) return TripReason::kSlowCallRate;
    return TripReason::kNone;
  }

  constexpr double failure_rate_threshold() const noexcept { return static_cast<double>(failure_ppm_) / kPpm; }
  constexpr double slow_call_rate_threshold() const noexcept { return static_cast<double>(slow_call_ppm_) / kPpm; }

 private:
  static constexpr std::int64_t kPpm = 1'000'000;
  // Rounded to the nearest millionth; a positive threshold keeps at least one.
  static constexpr std::int64_t ToPpm(double fraction) noexcept {
    const double scaled = fraction * static_cast<double>(kPpm) + 0.5;
    const std::int64_t ppm = scaled >= static_cast<double>(kPpm) ? kPpm : static_cast<std::int64_t>(scaled);
    return ppm < 1 ? 1 : ppm;
  }

  std::int64_t failure_ppm_;
  std::int64_t slow_call_ppm_;
};

}  // namespace stormguard
