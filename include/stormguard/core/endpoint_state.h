// stormguard/core/endpoint_state.h: a replica's state as outlier detection
// reports it (fleet/outlier_detection.h), in the from_state and to_state of
// its kStateChanged events. Here, below both the fleet that reports it and
// the metrics that count it. Ejected states say why, so a listener counts
// ejections by cause without reading words.
#pragma once

#include <cstdint>
#include <string_view>

namespace stormguard {

enum class EndpointState : std::uint8_t {
  kAdmitted,
  kEjectedConsecutiveFailures,
  kEjectedSuccessRate,
};

constexpr bool IsEjected(EndpointState s) noexcept { return s != EndpointState::kAdmitted; }

// "admitted", "consecutive_failures", "success_rate".
constexpr std::string_view EndpointStateName(EndpointState s) noexcept {
  switch (s) {
    case EndpointState::kAdmitted: return "admitted";
    case EndpointState::kEjectedConsecutiveFailures: return "consecutive_failures";
    case EndpointState::kEjectedSuccessRate: return "success_rate";
  }
  return "unknown";
}

}  // namespace stormguard
