#include "policies/builtin_policies.h"

namespace stormguard::config::config_internal {

std::vector<StagePolicy> BuiltInStagePolicies() {
  std::vector<StagePolicy> out;
  out.push_back(FallbackPolicy());
  out.push_back(TimeoutPolicy());
  out.push_back(AttemptTimeoutPolicy());
  out.push_back(RetryPolicy());
  out.push_back(HedgePolicy());
  out.push_back(ChaosPolicy());
  out.push_back(RequireIdempotencyKeyPolicy());
  out.push_back(CircuitBreakerPolicy());
  out.push_back(BulkheadPolicy());
  out.push_back(RateLimiterPolicy());
  out.push_back(AdaptiveConcurrencyPolicy());
  out.push_back(AdaptiveThrottlePolicy());
  out.push_back(GlobalRateLimitPolicy());
  return out;
}

}  // namespace stormguard::config::config_internal
