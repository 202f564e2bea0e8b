// tools/config_show.h: what `stormguard config show` prints, the effective
// policies of a valid configuration, per destination:
//   - its shared components with every option's value (defaults filled in;
//     third_party_api's own breaker when the destination has none);
//   - its pipeline's stages outermost first with every option, a preset
//     expanded into the stages it builds (config/preset.h);
//   - each method entry, and which stage each of its settings replaces or adds.
//
//   Status s = ShowEffective(std::move(parsed), json, [](std::string_view part) { write(part); });
//
// The output is made and handed to `emit` one destination at a time, so its
// memory is that of the largest destination, not of the whole output (a
// 4 MiB file can expand to far more text than it holds). Time is linear in
// the output. Names in the table are escaped (render/printable.h).
//
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <string_view>

#include "stormguard/config/config_json.h"
#include "stormguard/core/status.h"

namespace stormguard::cli {

// With `json`: {"format": ..., "destinations": {name: {"components",
// "pipeline", "methods", "notes"}}}; else the same content as aligned text,
// one option per line. `parsed` must have no errors. INVALID_ARGUMENT, with
// nothing emitted, when a preset cannot be expanded.
Status ShowEffective(config::ParsedConfig parsed, bool json, const std::function<void(std::string_view)>& emit);

}  // namespace stormguard::cli
