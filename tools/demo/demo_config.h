// tools/demo/demo_config.h: the policies of the demo's stormguard mode, read
// from tools/demo/stormguard.json (compiled in, so a service process needs
// no path). Each process keeps one registry and follows its pipelines
// through it, so a reload (live_config.h: --config FILE, --etcd URL --key K)
// reaches the next call:
//
//   http::HttpClientOptions o{.pipeline = DemoRegistry().Follow("bottom")};
//
// Destinations: "relay" (a hop that calls A or B), "bottom" (B calling C),
// "inbound" (the serving middleware's pipeline at every service).
#pragma once

#include <string_view>

#include "demo/replica_log.h"
#include "stormguard/config/registry.h"

namespace stormguard::demo {

// The text of tools/demo/stormguard.json.
std::string_view DemoConfigText();

// Loaded from DemoConfigText() on first use; a file that does not load is a
// bug in the demo (it aborts, naming every error). Reloads after that one
// are printed on stderr ("config version 2 accepted: etcd:/demo/config").
config::Registry& DemoRegistry();

// The registry's listener: the ejections and readmissions of its replica
// sets, in front of the demo's metrics (B serves it at GET /admin/replicas).
ReplicaLog& DemoReplicaLog();

}  // namespace stormguard::demo
