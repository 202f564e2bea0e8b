// src/config/preset_template.h: a registered preset and what it expands to
// (the format: stormguard/config/preset.h).
#pragma once

#include <string>
#include <string_view>

#include "json_io.h"
#include "stormguard/config/preset.h"

namespace stormguard::config::config_internal {

struct PresetTemplate {
  std::string name;
  Json parameters = Json::object();  // name -> default
  Json stages = Json::array();       // items as written: stages, or {"when"/"unless": flag, "stage": ...}
  Json components;                   // an object, or null
};

// The template in `text`; its problems under "preset <name>".
Result<PresetTemplate> ParsePresetTemplate(std::string_view text);

// `given` (a configuration's {"max_attempts": 5}) checked against the
// template's parameters, merged with their defaults.
Json ReadParameters(const PresetTemplate& t, const Json& given, const std::string& path, Errors& errors);

// The stages and components for `parameters` (complete, as ReadParameters
// returns them), read by the configuration's own readers. Errors are at
// `path`, the preset's place in the configuration, and name the parameter
// a bad value came from.
PresetStages ExpandTemplate(const PresetTemplate& t, const Json& parameters, const std::string& path, Errors& errors);

// The registered preset `name`, or null.
const PresetTemplate* FindPresetTemplate(std::string_view name);

}  // namespace stormguard::config::config_internal
