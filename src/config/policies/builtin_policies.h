// src/config/policies/builtin_policies.h: the library's own stage policies,
// each in its file beside this one, and what their registrations share.
#pragma once

#include <any>
#include <string>
#include <vector>

#include "destination_build.h"
#include "json_io.h"
#include "stormguard/config/stage_policy.h"

namespace stormguard::config::config_internal {

// In the order a configuration's errors list them; one line each in
// builtin_policies.cc.
std::vector<StagePolicy> BuiltInStagePolicies();

StagePolicy FallbackPolicy();
StagePolicy TimeoutPolicy();
StagePolicy AttemptTimeoutPolicy();
StagePolicy RetryPolicy();
StagePolicy HedgePolicy();
StagePolicy ChaosPolicy();
StagePolicy RequireIdempotencyKeyPolicy();
StagePolicy CircuitBreakerPolicy();
StagePolicy BulkheadPolicy();
StagePolicy RateLimiterPolicy();
StagePolicy AdaptiveConcurrencyPolicy();
StagePolicy AdaptiveThrottlePolicy();
StagePolicy GlobalRateLimitPolicy();

// The stage of the destination's shared component `name`: `add` adds it,
// false when the destination configures none (guard_policies.cc).
StagePolicy SharedGuard(const std::string& name, StagePlacement placement,
                        bool (*add)(PipelineBuilder&, const Components&));

// Options read and written through their Fields() list (json_fields.h).
template <class T>
std::any ReadOptions(const Json& j, const std::string& path, Errors& errors) {
  T options;
  Read(j, path, errors, options);
  return options;
}
template <class T>
Json WriteOptions(const std::any& options) {
  return Write(std::any_cast<const T&>(options));
}

inline DestinationBuild& Destination(StageBuildContext& ctx) { return *ctx.internal; }

}  // namespace stormguard::config::config_internal
