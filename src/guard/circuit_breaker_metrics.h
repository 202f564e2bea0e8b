// The circuit breaker's own metric families (internal), registered by its
// first Create: its state gauge and its transitions, labelled with its own
// state names (CircuitStateName).
#pragma once

#include "stormguard/core/status.h"

namespace stormguard::guard_internal {

// Registers them once per process; later calls return the first answer.
Status RegisterCircuitBreakerMetrics();

}  // namespace stormguard::guard_internal
