// "adaptive_throttle": the destination's shared AdaptiveThrottle, whose
// options are the destination's component of that name. Like the other
// guards it is kept across a reload that leaves its options as they were,
// window and all (registry_components.h).
#include "policies/builtin_policies.h"
#include "stormguard/pipeline/stages/all.h"

namespace stormguard::config::config_internal {

StagePolicy AdaptiveThrottlePolicy() {
  return SharedGuard("adaptive_throttle", AdaptiveThrottleStage::kPlacement,
                     [](PipelineBuilder& b, const Components& c) {
                       return c.throttle.component && (b.AddAdaptiveThrottle(c.throttle.component), true);
                     });
}

}  // namespace stormguard::config::config_internal
