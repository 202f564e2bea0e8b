// stormguard/config/preset_stages.h: the stages a preset builds, as configuration.
//
// A preset's stages and their numbers are known in one place, the preset
// itself (pipeline/presets.h). ExpandPreset builds the preset's pipeline and
// reads every stage back from it, outermost first, with every option, so
// `stormguard config show` can print what a preset means without restating it:
//
//   Result<PresetStages> s = ExpandPreset(preset);  // user_facing: timeout(1s), retry(3 attempts, ...)
//
// Pointers a program supplies (the destination's budget and breaker) are
// not set here: the stages carry options, not shared components.
//
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <vector>

#include "stormguard/config/config.h"
#include "stormguard/core/result.h"

namespace stormguard::config {

struct PresetStages {
  std::vector<StageConfig> stages;  // outermost first
  // The options of the breaker the preset makes for itself when the
  // destination gives it none (third_party_api's circuit_breaker stage).
  std::optional<CircuitBreakerOptions> own_breaker;
};

// INVALID_ARGUMENT when the preset's options are (a validated config's are
// not); INTERNAL when the preset builds a stage a StageConfig cannot hold.
Result<PresetStages> ExpandPreset(const PresetConfig& preset);

}  // namespace stormguard::config
