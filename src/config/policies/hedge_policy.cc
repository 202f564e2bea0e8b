// "hedge": HedgeConfig, with the destination's retry budget; a hedge that
// follows latency takes the tracker made before the pipeline's stages
// (DestinationBuild::hedge_latency), which an adaptive timeout may share.
#include "json_fields.h"
#include "policies/builtin_policies.h"
#include "stormguard/pipeline/stages/hedge_stage.h"

namespace stormguard::config::config_internal {

StagePolicy HedgePolicy() {
  return {.name = "hedge",
          .defaults = HedgeConfig{},
          .read = ReadOptions<HedgeConfig>,
          .write = WriteOptions<HedgeConfig>,
          .placement = [](const std::any&) { return HedgeStage::kPlacement; },
          .build =
              [](const std::any& options, StageBuildContext& ctx) {
                const auto& h = std::any_cast<const HedgeConfig&>(options);
                DestinationBuild& d = Destination(ctx);
                HedgeOptions o = h.options;
                o.budget = d.components.budget.component;
                if (h.latency) {
                  o.latency = d.hedge_latency;
                  if (o.latency == nullptr) return;  // its error is reported
                }
                if (!h.non_fatal_status_codes.empty()) {
                  o.classifier = CodesClassifier(h.non_fatal_status_codes, d.snapshot);
                }
                ctx.builder.AddHedge(std::move(o), d.env.executor());
              }};
}

}  // namespace stormguard::config::config_internal
