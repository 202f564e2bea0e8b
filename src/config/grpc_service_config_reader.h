// src/config/grpc_service_config_reader.h: a gRPC service config's JSON into
// a Config (the mapping is documented in stormguard/config/grpc_service_config.h).
#pragma once

#include <string_view>

#include "json_io.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

// A top-level object with methodConfig or retryThrottling.
bool IsGrpcServiceConfig(const Json& doc);
// One destination named `destination`; errors carry gRPC's field paths.
Config ReadGrpcServiceConfig(const Json& doc, std::string_view destination, Errors& errors);

}  // namespace stormguard::config::config_internal
