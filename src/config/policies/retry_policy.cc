// "retry": RetryConfig, with the destination's retry budget.
#include "json_fields.h"
#include "policies/builtin_policies.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard::config::config_internal {

StagePolicy RetryPolicy() {
  return {.name = "retry",
          .defaults = RetryConfig{},
          .read = ReadOptions<RetryConfig>,
          .write = WriteOptions<RetryConfig>,
          .placement = [](const std::any&) { return RetryStage::kPlacement; },
          .build =
              [](const std::any& options, StageBuildContext& ctx) {
                const auto& c = std::any_cast<const RetryConfig&>(options);
                DestinationBuild& d = Destination(ctx);
                RetryOptions o = c.options;
                o.budget = d.components.budget.component;
                if (!c.retryable_status_codes.empty())
                  o.classifier = CodesClassifier(c.retryable_status_codes, d.snapshot);
                ctx.builder.AddRetry(std::move(o));
              }};
}

}  // namespace stormguard::config::config_internal
