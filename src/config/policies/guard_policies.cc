// Stages without options: "require_idempotency_key", and the destination's
// shared guards ("circuit_breaker", "bulkhead", "rate_limiter",
// "adaptive_concurrency"; "adaptive_throttle" in throttle_policy.cc), whose
// options are the destination's component.
#include "policies/builtin_policies.h"
#include "stormguard/pipeline/stages/all.h"

namespace stormguard::config::config_internal {

StagePolicy SharedGuard(const std::string& name, StagePlacement placement,
                        bool (*add)(PipelineBuilder&, const Components&)) {
  return {.name = name,
          .placement = [placement](const std::any&) { return placement; },
          .build =
              [name, add](const std::any&, StageBuildContext& ctx) {
                if (add(ctx.builder, Destination(ctx).components)) return;
                ctx.errors.push_back(ctx.path + ": " + name +
                                     " names the destination's shared component, which the destination does not "
                                     "configure");
              },
          .shared_component = name};
}

StagePolicy RequireIdempotencyKeyPolicy() {
  return {.name = "require_idempotency_key",
          .placement = [](const std::any&) { return IdempotencyKeyStage::kPlacement; },
          .build = [](const std::any&, StageBuildContext& ctx) { ctx.builder.AddRequireIdempotencyKey(); }};
}

StagePolicy CircuitBreakerPolicy() {
  return SharedGuard("circuit_breaker", CircuitBreakerStage::kPlacement, [](PipelineBuilder& b, const Components& c) {
    return c.breaker.component && (b.AddCircuitBreaker(c.breaker.component), true);
  });
}

StagePolicy BulkheadPolicy() {
  return SharedGuard("bulkhead", BulkheadStage::kPlacement, [](PipelineBuilder& b, const Components& c) {
    return c.bulkhead.component && (b.AddBulkhead(c.bulkhead.component), true);
  });
}

StagePolicy RateLimiterPolicy() {
  return SharedGuard("rate_limiter", RateLimiterStage::kPlacement, [](PipelineBuilder& b, const Components& c) {
    return c.rate_limiter.component && (b.AddRateLimiter(c.rate_limiter.component), true);
  });
}

StagePolicy AdaptiveConcurrencyPolicy() {
  return SharedGuard("adaptive_concurrency", AdaptiveConcurrencyStage::kPlacement,
                     [](PipelineBuilder& b, const Components& c) {
                       return c.adaptive.component && (b.AddAdaptiveConcurrency(c.adaptive.component), true);
                     });
}

}  // namespace stormguard::config::config_internal
