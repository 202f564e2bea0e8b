// "chaos": ChaosConfig. Its ChaosPolicy is the destination's, kept across
// reloads (registry_chaos.h); the k-th chaos stage takes the k-th.
#include "json_fields.h"
#include "policies/builtin_policies.h"

namespace stormguard::config::config_internal {

StagePolicy ChaosPolicy() {
  return {.name = "chaos",
          .defaults = ChaosConfig{},
          .read = ReadOptions<ChaosConfig>,
          .write = WriteOptions<ChaosConfig>,
          // Anywhere, when the stage says why it belongs outside the retry.
          .placement =
              [](const std::any& o) {
                return std::any_cast<const ChaosConfig&>(o).stage.outside_retry_because.empty()
                           ? ChaosStage::kPlacement
                           : ChaosStage::kPlacementAnywhere;
              },
          .build =
              [](const std::any& o, StageBuildContext& ctx) {
                DestinationBuild& d = Destination(ctx);
                const KeptChaos& chaos = d.components.chaos.at(d.next_chaos++);
                if (chaos.policy == nullptr) return;  // already an error
                ctx.builder.AddChaos(chaos.policy, std::any_cast<const ChaosConfig&>(o).stage);
              }};
}

}  // namespace stormguard::config::config_internal
