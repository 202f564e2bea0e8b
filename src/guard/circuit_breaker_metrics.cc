#include "circuit_breaker_metrics.h"

#include <string>
#include <vector>

#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/metrics/metric_family.h"

namespace stormguard::guard_internal {
namespace {

Status Register() {
  std::vector<std::string> states;
  for (auto s = CircuitState::kClosed; s <= CircuitState::kMetricsOnly;
       s = static_cast<CircuitState>(static_cast<int>(s) + 1)) {
    states.emplace_back(CircuitStateName(s));
  }
  return RegisterMetricFamilies({
      {.name = "stormguard_circuitbreaker_state",
       .help = "1 for the circuit breaker's current state, 0 for the others.",
       .type = MetricType::kStateGauge,
       .policy = PolicyId::kCircuitBreaker,
       .kinds = {EventKind::kStateReported, EventKind::kStateChanged},
       .state_label = "state",
       .state_names = states},
      {.name = "stormguard_circuitbreaker_transitions_total",
       .help = "Circuit breaker transitions, by the state entered.",
       .policy = PolicyId::kCircuitBreaker,
       .kinds = {EventKind::kStateChanged},
       .state_label = "state",
       .state_names = states},
  });
}

}  // namespace

Status RegisterCircuitBreakerMetrics() {
  static const Status registered = Register();
  return registered;
}

}  // namespace stormguard::guard_internal
