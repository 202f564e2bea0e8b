// stormguard/config/preset.h: presets as data, in the configuration's own format.
//
// A preset is a named list of stages with parameters, written in the JSON a
// configuration uses for `{"stages": [...]}` and read by the same reader.
// The library's five (user_facing, background_job, third_party_api, payment,
// high_fan_out) ship as JSON files compiled into the library
// (src/config/presets/); a program registers its own the same way, before it
// parses a configuration:
//
//   RegisterPreset(R"({
//     "name": "batch_export",
//     "parameters": {"attempt_timeout": "20s", "max_attempts": 4},
//     "stages": [{"retry": {"max_attempts": "$max_attempts", "idempotent": true}},
//                {"attempt_timeout": {"timeout": "$attempt_timeout"}}]
//   })");
//   // {"pipeline": {"batch_export": {"max_attempts": 6}}} now parses, builds and shows.
//
// The format:
//   - "parameters": each parameter's default; its JSON type (boolean,
//     number, string) is the type a configuration must give it.
//   - "stages": stages as a configuration writes them. A string "$name"
//     anywhere inside is replaced by the parameter's value. An item
//     {"when": "flag", "stage": ...} is a stage only when the boolean
//     parameter `flag` is true; {"unless": "flag", "stage": ...} only when
//     it is false.
//   - "components" (optional): shared components, as a destination writes
//     them, that the preset brings when the destination configures none
//     (third_party_api's circuit breaker).
//   - "about" (optional): one line for people.
// An error in a value that came from a parameter names the parameter
// ("pipeline.background_job.max_attempts: must be at least 1").
//
// Thread safety: registration takes a lock; a registered preset is never
// removed or changed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/config/config.h"
#include "stormguard/core/result.h"

namespace stormguard::config {

// INVALID_ARGUMENT naming the field for a malformed preset (a "$name" or a
// "when" naming no parameter, a "when" on a parameter that is not boolean);
// ALREADY_EXISTS for a name taken (by a preset or by "stages").
Status RegisterPreset(std::string_view json_text);
// Every registered preset's name, the library's first.
std::vector<std::string> PresetNames();
// The preset's parameters with their defaults; null when no preset has the name.
const nlohmann::json* PresetDefaults(std::string_view name);

// A preset's stages outermost first, and the components it brings.
struct PresetStages {
  std::vector<StageConfig> stages;
  // Only the shared components are set (retry_budget ... adaptive_concurrency).
  DestinationConfig components;
};

// INVALID_ARGUMENT, naming the parameter, when the preset's parameters are
// invalid (a validated configuration's are not); NOT_FOUND for no preset of
// that name.
Result<PresetStages> ExpandPreset(const PresetConfig& preset);

// Gives `d` the components `preset` brings that `d` does not configure;
// their names ("circuit_breaker").
std::vector<std::string> AddPresetComponents(DestinationConfig& d, const PresetStages& preset);

}  // namespace stormguard::config
