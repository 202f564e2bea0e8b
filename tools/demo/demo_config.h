// tools/demo/demo_config.h: the policies of the demo's stormguard mode, read
// from tools/demo/stormguard.json (compiled in, so a service process needs
// no path). Each process keeps one registry and takes its pipelines from it:
//
//   http::HttpClientOptions o{.pipeline = DemoRegistry().Get("bottom")};
//
// Destinations: "relay" (a hop that calls A or B), "bottom" (B calling C),
// "inbound" (the serving middleware's pipeline at every service).
#pragma once

#include <string_view>

#include "stormguard/config/registry.h"

namespace stormguard::demo {

// The text of tools/demo/stormguard.json.
std::string_view DemoConfigText();

// Loaded from DemoConfigText() on first use; a file that does not load is a
// bug in the demo (it aborts, naming every error).
const config::Registry& DemoRegistry();

}  // namespace stormguard::demo
