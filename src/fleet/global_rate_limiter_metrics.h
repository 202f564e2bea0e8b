// The metric families of the fleet-wide rate limit (fleet/global_rate_limiter.h).
#pragma once

#include "stormguard/core/status.h"

namespace stormguard::global_limit_internal {

// Registers them once per process; the same answer every call.
Status RegisterGlobalRateLimitMetrics();

}  // namespace stormguard::global_limit_internal
