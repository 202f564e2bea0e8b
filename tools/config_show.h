// tools/config_show.h: what `stormguard config show` prints, the effective
// policies of a valid configuration, per destination:
//   - its shared components with every option's value (defaults filled in;
//     third_party_api's own breaker when the destination has none);
//   - its pipeline's stages outermost first with every option, a preset
//     expanded into the stages it builds (config/preset_stages.h);
//   - each method entry, and which stage each of its settings replaces or adds.
//
//   Result<nlohmann::ordered_json> e = EffectiveConfig(parsed);  // the --json form
//   std::string table = EffectiveTable(*e);                      // the default form
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "stormguard/config/config_json.h"
#include "stormguard/core/result.h"

namespace stormguard::cli {

// {"format": ..., "destinations": {name: {"components", "pipeline", "methods"}}};
// `parsed` must have no errors.
Result<nlohmann::ordered_json> EffectiveConfig(const config::ParsedConfig& parsed);

// The same content as aligned text, one option per line.
std::string EffectiveTable(const nlohmann::ordered_json& effective);

}  // namespace stormguard::cli
