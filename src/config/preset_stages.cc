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

// The policy whose placement the stage declares, or null.
const StagePolicy* PolicyOf(const Stage& stage) {
  const std::string_view kind = stage.placement().kind;
  for (const StagePolicy* p : StagePolicies()) {
    if (PlacementOf(StageConfig(*p, p->defaults)).kind == kind) return p;
  }
  return nullptr;
}

// The stage's options into `out`; false when its class is not the policy's.
bool ReadOptions(const Stage& stage, StageConfig& out, PresetStages& preset) {
  if (auto* o = out.options<FallbackOptions>()) {
    const auto* s = dynamic_cast<const FallbackStage*>(&stage);
    if (s != nullptr) *o = s->options();
    return s != nullptr;
  }
  if (auto* o = out.options<TimeoutConfig>()) {
    const auto* s = dynamic_cast<const TimeoutStage*>(&stage);
    if (s != nullptr) o->timeout = s->options();
    return s != nullptr;
  }
  if (auto* o = out.options<RetryConfig>()) {
    const auto* s = dynamic_cast<const RetryStage*>(&stage);
    if (s != nullptr) o->options = s->policy().options();
    return s != nullptr;
  }
  if (out.Is("circuit_breaker")) {
    const auto* s = dynamic_cast<const CircuitBreakerStage*>(&stage);
    if (s != nullptr) preset.own_breaker = s->breaker().options();
    return s != nullptr;
  }
  return out.Is("require_idempotency_key");  // no options; no preset builds any other
}

}  // namespace

Result<PresetStages> ExpandPreset(const PresetConfig& preset) {
  Result<PipelineRef> built = BuilderOf(preset).Build();
  if (!built.ok()) return built.status();
  const Pipeline& pipeline = *built->get();
  PresetStages out;
  for (std::size_t i = 0; i < pipeline.size(); ++i) {
    const Stage& stage = pipeline.stage(i);
    const StagePolicy* policy = PolicyOf(stage);
    StageConfig& config = out.stages.emplace_back();
    if (policy != nullptr) config = StageConfig(*policy, policy->defaults);
    if (policy == nullptr || !ReadOptions(stage, config, out)) {
      return Status::Internal("preset " + std::string(PresetKindName(preset.kind)) + ": stage " +
                              std::string(stage.name()) + " has no configuration form");
    }
  }
  return out;
}

}  // namespace stormguard::config
