// What a replica registered under a discovery prefix looks like in etcd:
// the key is <prefix><address> and the value a small JSON object,
//
//   /sg/replicas/inventory/10.0.0.7:8080 -> {"address": "10.0.0.7:8080", "weight": 1}
//
// "weight" may be left out (1). The address is in the key, so two keys can
// never name one replica, and in the value, so a value copied under the
// wrong key is caught instead of sending calls to the wrong place.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "stormguard/core/result.h"
#include "stormguard/fleet/replica_set.h"

namespace stormguard::config_sources {

// A value past this is no record a registration wrote: skipped unread.
inline constexpr std::size_t kMaxReplicaRecordBytes = 4096;

std::string ReplicaRecord(const EndpointSpec& endpoint);

// INVALID_ARGUMENT unless `address` is host:port (a port in [1, 65535])
// that ValidateEndpoints accepts.
Status CheckReplicaAddress(std::string_view address);

// The endpoint a key under the prefix (`address`: the key past the prefix)
// stands for, or why it cannot be used.
Result<EndpointSpec> ParseReplicaRecord(std::string_view address, std::string_view value);

}  // namespace stormguard::config_sources
