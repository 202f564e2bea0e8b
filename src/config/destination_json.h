// src/config/destination_json.h: the JSON form of a destination's shared
// components, as the writer produces it (config_json.cc). The registry
// compares these to tell whether a reload changed a component's options.
#pragma once

#include "json_io.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

// {"retry_budget": ..., "circuit_breaker": ..., ...}: the configured ones only.
Json WriteComponents(const DestinationConfig& d);

}  // namespace stormguard::config::config_internal
