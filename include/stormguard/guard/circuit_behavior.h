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
// threshold. Thresholds compare with >=: 50 failures in 100 calls trips a
// 50% threshold. Rates are compared as failures * 100 >= threshold * calls,
// so no division rounds a rate that sits exactly on the threshold.
//
//   CircuitBehavior rule(/*failure_rate_threshold=*/50, /*slow_call_rate_threshold=*/50);
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
  // Thresholds in percent, in (0, 100] (CircuitBreakerOptions validates).
  constexpr CircuitBehavior(double failure_rate_threshold, double slow_call_rate_threshold) noexcept
      : failure_rate_threshold_(failure_rate_threshold),
        slow_call_rate_threshold_(slow_call_rate_threshold) {}

  // Whether a window holding `counts` should open the circuit. Below
  // `minimum_calls` calls it never trips; the failure rate is checked first.
  constexpr TripReason Evaluate(const WindowCounts& counts, std::int64_t minimum_calls) const noexcept {
    if (counts.calls <= 0 || counts.calls < minimum_calls) return TripReason::kNone;
    const double calls = static_cast<double>(counts.calls);
    if (static_cast<double>(counts.failures) * 100.0 >= failure_rate_threshold_ * calls) {
      return TripReason::kFailureRate;
    }
    if (static_cast<double>(counts.slow_calls) * 100.0 >= slow_call_rate_threshold_ * calls) {
      return TripReason::kSlowCallRate;
    }
    return TripReason::kNone;
  }

  constexpr double failure_rate_threshold() const noexcept { return failure_rate_threshold_; }
  constexpr double slow_call_rate_threshold() const noexcept { return slow_call_rate_threshold_; }

 private:
  double failure_rate_threshold_;
  double slow_call_rate_threshold_;
};

}  // namespace stormguard
