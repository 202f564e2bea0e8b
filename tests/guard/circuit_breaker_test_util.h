// Helpers shared by the circuit breaker tests: a one-line way to build a
// breaker that must be valid (events are recorded by RecordingListener).
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "stormguard/guard/circuit_breaker.h"
#include "testkit/recording_listener.h"

namespace stormguard::testkit {

inline constexpr OutcomeClass kOk = OutcomeClass::kSuccess;
inline constexpr OutcomeClass kFail = OutcomeClass::kTransient;

inline std::shared_ptr<CircuitBreaker> MakeBreaker(CircuitBreakerOptions options) {
  auto made = CircuitBreaker::Create(std::move(options));
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(*made) : nullptr;
}

}  // namespace stormguard::testkit
