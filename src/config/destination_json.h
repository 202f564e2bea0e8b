// src/config/destination_json.h: the pieces of a destination's JSON that
// presets reuse (preset_template.cc) and the registry compares (the
// components' written form tells whether a reload changed their options).
#pragma once

#include "json_io.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

// {"retry_budget": ..., "circuit_breaker": ..., ...}: the configured ones only.
Json WriteComponents(const DestinationConfig& d);
// The shared components among r's fields; the object `j` of only those.
void ReadComponents(ObjectReader& r, DestinationConfig& d);
DestinationConfig ReadComponents(const Json& j, const std::string& path, Errors& errors);
// Whether `d` configures the shared component `name` ("circuit_breaker").
bool HasComponent(const DestinationConfig& d, std::string_view name);
// `d`'s shared components alone.
DestinationConfig ComponentsOf(const DestinationConfig& d);

// One stage, {"kind": {options}} or "kind"; `known` is false when its kind
// could not be read.
StageConfig ReadStage(const Json& j, const std::string& path, Errors& errors, bool& known);
// An order PipelineBuilder::Build() would refuse, by its own rule, at the
// offending stage's path.
void CheckStageOrder(const std::vector<StageConfig>& stages, const std::string& path, Errors& errors);
Json WriteStage(const StageConfig& s);

}  // namespace stormguard::config::config_internal
