// "global_rate_limit": the destination's shared GlobalRateLimiter, whose
// options are the destination's component of that name and whose lease
// store the program gives (RegistryOptions::lease_stores). Kept across a
// reload that leaves its options as they were, lease and all
// (registry_components.h).
#include "policies/builtin_policies.h"
#include "stormguard/pipeline/stages/all.h"

namespace stormguard::config::config_internal {

StagePolicy GlobalRateLimitPolicy() {
  return SharedGuard("global_rate_limit", GlobalRateLimitStage::kPlacement,
                     [](PipelineBuilder& b, const Components& c) {
                       return c.global_limit.component && (b.AddGlobalRateLimit(c.global_limit.component), true);
                     });
}

}  // namespace stormguard::config::config_internal
