// "fallback": FallbackOptions.
#include "json_fields.h"
#include "policies/builtin_policies.h"

namespace stormguard::config::config_internal {

StagePolicy FallbackPolicy() {
  return {.name = "fallback",
          .defaults = FallbackOptions{},
          .read = ReadOptions<FallbackOptions>,
          .write = WriteOptions<FallbackOptions>,
          .placement = [](const std::any&) { return FallbackStage::kPlacement; },
          .build = [](const std::any& o,
                      StageBuildContext& ctx) { ctx.builder.AddFallback(std::any_cast<const FallbackOptions&>(o)); }};
}

}  // namespace stormguard::config::config_internal
