#include "stormguard/config/preset_stages.h"

#include "stormguard/pipeline/stages/circuit_breaker_stage.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard::config {
namespace {

PipelineBuilder BuilderOf(const PresetConfig& p) {
  switch (p.kind) {
    case PresetKind::kUserFacing: return presets::UserFacing(p.user_facing);
    case PresetKind::kBackgroundJob: return presets::BackgroundJob(p.background_job);
    case PresetKind::kThirdPartyApi: return presets::ThirdPartyApi(p.third_party_api);
    case PresetKind::kPayment: return presets::Payment(p.payment);
    case PresetKind::kHighFanOut: return presets::HighFanOut(p.high_fan_out);
  }
  return PipelineBuilder();
}

// The kind whose declared placement the stage has, or nullopt.
std::optional<StageKind> KindOf(const Stage& stage) {
  const std::string_view kind = stage.placement().kind;
  for (int k = 0; k <= static_cast<int>(StageKind::kAdaptiveConcurrency); ++k) {
    if (StagePlacementOf(static_cast<StageKind>(k)).kind == kind) return static_cast<StageKind>(k);
  }
  return std::nullopt;
}

// The stage's options into `out`; false when its class is not the kind's.
bool ReadOptions(const Stage& stage, StageConfig& out, PresetStages& preset) {
  switch (out.kind) {
    case StageKind::kFallback: {
      const auto* s = dynamic_cast<const FallbackStage*>(&stage);
      if (s != nullptr) out.fallback = s->options();
      return s != nullptr;
    }
    case StageKind::kTimeout:
    case StageKind::kAttemptTimeout: {
      const auto* s = dynamic_cast<const TimeoutStage*>(&stage);
      if (s != nullptr) out.timeout = s->options();
      return s != nullptr;
    }
    case StageKind::kRetry: {
      const auto* s = dynamic_cast<const RetryStage*>(&stage);
      if (s != nullptr) out.retry.options = s->policy().options();
      return s != nullptr;
    }
    case StageKind::kCircuitBreaker: {
      const auto* s = dynamic_cast<const CircuitBreakerStage*>(&stage);
      if (s != nullptr) preset.own_breaker = s->breaker().options();
      return s != nullptr;
    }
    case StageKind::kRequireIdempotencyKey: return true;  // no options
    default: return false;  // no preset builds it: nothing here reads its options yet
  }
}

}  // namespace

Result<PresetStages> ExpandPreset(const PresetConfig& preset) {
  Result<PipelineRef> built = BuilderOf(preset).Build();
  if (!built.ok()) return built.status();
  const Pipeline& pipeline = *built->get();
  PresetStages out;
  for (std::size_t i = 0; i < pipeline.size(); ++i) {
    const Stage& stage = pipeline.stage(i);
    const std::optional<StageKind> kind = KindOf(stage);
    StageConfig& config = out.stages.emplace_back();
    if (kind) config.kind = *kind;
    if (!kind || !ReadOptions(stage, config, out)) {
      return Status::Internal("preset " + std::string(PresetKindName(preset.kind)) + ": stage " +
                              std::string(stage.name()) + " has no configuration form");
    }
  }
  return out;
}

}  // namespace stormguard::config
