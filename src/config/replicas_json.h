// src/config/replicas_json.h: a destination's "replicas" object.
//
//   "replicas": {
//     "endpoints": ["10.0.0.1:8080", {"address": "10.0.0.2:8080", "weight": 2}],
//     "picker": "p2c_peak_ewma",
//     "load": {"decay": "10s", "initial_latency": "10ms"},
//     "outlier_detection": {"consecutive_failures": 5, "interval": "10s", ...}
//   }
#pragma once

#include "json_io.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

ReplicasConfig ReadReplicas(const Json& j, const std::string& path, Errors& errors);
Json WriteReplicas(const ReplicasConfig& r);
// What ReadReplicas checks, for a configuration built in C++.
void CheckReplicas(const ReplicasConfig& r, const std::string& path, Errors& errors);

}  // namespace stormguard::config::config_internal
