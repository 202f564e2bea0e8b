#include "stormguard/config/config.h"

#include "stormguard/pipeline/stages/adaptive_concurrency_stage.h"
#include "stormguard/pipeline/stages/bulkhead_stage.h"
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"
#include "stormguard/pipeline/stages/hedge_stage.h"
#include "stormguard/pipeline/stages/idempotency_key_stage.h"
#include "stormguard/pipeline/stages/rate_limiter_stage.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard::config {

std::string_view StageKindName(StageKind k) noexcept {
  switch (k) {
    case StageKind::kFallback: return "fallback";
    case StageKind::kTimeout: return "timeout";
    case StageKind::kAttemptTimeout: return "attempt_timeout";
    case StageKind::kRetry: return "retry";
    case StageKind::kHedge: return "hedge";
    case StageKind::kChaos: return "chaos";
    case StageKind::kRequireIdempotencyKey: return "require_idempotency_key";
    case StageKind::kCircuitBreaker: return "circuit_breaker";
    case StageKind::kBulkhead: return "bulkhead";
    case StageKind::kRateLimiter: return "rate_limiter";
    case StageKind::kAdaptiveConcurrency: return "adaptive_concurrency";
  }
  return "unknown";
}

StagePlacement StagePlacementOf(StageKind k) noexcept {
  switch (k) {
    case StageKind::kFallback: return FallbackStage::kPlacement;
    case StageKind::kTimeout: return TimeoutStage::kOverall;
    case StageKind::kAttemptTimeout: return TimeoutStage::kPerAttempt;
    case StageKind::kRetry: return RetryStage::kPlacement;
    case StageKind::kHedge: return HedgeStage::kPlacement;
    case StageKind::kChaos: return ChaosStage::kPlacement;
    case StageKind::kRequireIdempotencyKey: return IdempotencyKeyStage::kPlacement;
    case StageKind::kCircuitBreaker: return CircuitBreakerStage::kPlacement;
    case StageKind::kBulkhead: return BulkheadStage::kPlacement;
    case StageKind::kRateLimiter: return RateLimiterStage::kPlacement;
    case StageKind::kAdaptiveConcurrency: return AdaptiveConcurrencyStage::kPlacement;
  }
  return {};
}

StagePlacement StagePlacementOf(const StageConfig& s) noexcept {
  if (s.kind == StageKind::kChaos && !s.chaos.stage.outside_retry_because.empty()) {
    return ChaosStage::kPlacementAnywhere;
  }
  return StagePlacementOf(s.kind);
}

std::string_view PresetKindName(PresetKind k) noexcept {
  switch (k) {
    case PresetKind::kUserFacing: return "user_facing";
    case PresetKind::kBackgroundJob: return "background_job";
    case PresetKind::kThirdPartyApi: return "third_party_api";
    case PresetKind::kPayment: return "payment";
    case PresetKind::kHighFanOut: return "high_fan_out";
  }
  return "unknown";
}

const MethodConfig* FindMethod(const DestinationConfig& destination, std::string_view method) {
  const auto& methods = destination.methods;
  if (auto it = methods.find(method); it != methods.end()) return &it->second;
  if (const std::size_t slash = method.rfind('/'); slash != std::string_view::npos) {
    std::string wildcard(method.substr(0, slash + 1));
    wildcard += '*';
    if (auto it = methods.find(wildcard); it != methods.end()) return &it->second;
  }
  if (auto it = methods.find("*"); it != methods.end()) return &it->second;
  return nullptr;
}

}  // namespace stormguard::config
