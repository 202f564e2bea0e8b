// src/config/destination_build.h: what building one destination's pipelines
// needs besides its configuration. The library's own stage policies
// (policies/) reach it through StageBuildContext::internal.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "registry_components.h"
#include "registry_snapshot.h"
#include "stormguard/config/stage_policy.h"
#include "stormguard/hedge/latency_tracker.h"

namespace stormguard::config::config_internal {

struct DestinationBuild {
  const Components& components;
  const BuildEnv& env;
  Snapshot& snapshot;
  std::vector<std::string>& errors;
  std::size_t next_chaos = 0;  // the pipeline being built takes components.chaos in order
  // The tracker of the hedge of the pipeline being built, when that hedge
  // follows latency: an adaptive timeout without its own shares it.
  std::shared_ptr<LatencyTracker> hedge_latency = nullptr;
};

// A tracker with `o`, or null after an error at path.latency.
std::shared_ptr<LatencyTracker> MakeTracker(const LatencyTrackerOptions& o, DestinationBuild& d,
                                            const std::string& path);

// A classifier of exactly these failure codes, owned by the snapshot.
const Classifier* CodesClassifier(const std::vector<StatusCode>& codes, Snapshot& s);

}  // namespace stormguard::config::config_internal
