// stormguard/config/config_json.h: the JSON form of a Config, and gRPC
// service configs read as they are.
//
//   {"destinations": {"inventory": {
//      "retry_budget": {"token_bucket": {"max_tokens": 10, "token_ratio": 0.1}},
//      "circuit_breaker": {"failure_rate_threshold": 0.5, "wait_in_open": "30s"},
//      "pipeline": {"stages": [{"timeout": {"timeout": "1s"}},
//                              {"retry": {"max_attempts": 3, "backoff": {"base": "100ms"}}},
//                              "circuit_breaker",
//                              {"attempt_timeout": {"timeout": "300ms"}}]},
//      "methods": {"GET /stock": {"timeout": "250ms"}}}}}
//
// Field names are the C++ options' names; durations are strings ("250ms",
// "1.5s", config/duration_text.h); shares are fractions; an omitted field
// keeps the option's default. docs/configuration.md lists every field.
//
// A document with a top-level `methodConfig` or `retryThrottling` is a gRPC
// service config (config/grpc_service_config.h), read verbatim into one
// destination named `grpc_destination`.
//
// Errors: every problem at once, each "json.path: reason", e.g.
// "destinations.inventory.retry_budget.token_bucket.max_tokens: must be in
// [1, 1000000000], got 0". Value checks are the options' own Validate(), so
// the messages are those of the C++ API. A key nobody reads is an error
// (a typo is never ignored); so is a key given twice in one object.
//
// Bounds, for a careless or hostile file: at most kMaxConfigBytes of text
// and no NUL byte (nlohmann reads one as the end of the text), nesting at most kMaxConfigDepth deep, at most
// kMaxDestinations destinations and kMaxMethods methods per destination, names at most kMaxNameLength bytes, lists
// (stages, status codes) at most 64 items; numbers beyond a double's range (1e400) are errors, never infinities.
// Parsing such a file takes time and memory linear in its size.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/config/config.h"
#include "stormguard/core/result.h"

namespace stormguard::config {

inline constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;  // 4 MiB
inline constexpr int kMaxConfigDepth = 16;
inline constexpr std::size_t kMaxDestinations = 10'000;
inline constexpr std::size_t kMaxMethods = 10'000;
inline constexpr std::size_t kMaxNameLength = 256;

enum class ConfigFormat { kStormguard, kGrpcServiceConfig };

struct ParsedConfig {
  Config config;  // valid only when errors is empty
  ConfigFormat format = ConfigFormat::kStormguard;
  std::vector<std::string> errors;  // every problem, "path: reason"
};

// Never throws.
ParsedConfig ParseConfigText(std::string_view text, std::string_view grpc_destination = "default");
// The config, or INVALID_ARGUMENT "invalid config: e1; e2; ...".
Result<Config> ParseConfig(std::string_view text, std::string_view grpc_destination = "default");
// The checks every config document passes before it is read, for other
// JSON files read beside one (lint's chain files): size, no NUL byte,
// syntax, depth, and no key twice in one object. The problem as "path: reason"; none: fine.
std::vector<std::string> CheckJsonText(std::string_view text);

// Our format (whatever the config was read from), two-space indented;
// ParseConfig(ToJson(c)) gives c back.
std::string ToJson(const Config& config);

}  // namespace stormguard::config
