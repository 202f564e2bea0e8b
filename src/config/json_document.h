// src/config/json_document.h: text -> JSON under the config's bounds.
#pragma once

#include <optional>
#include <string_view>

#include "json_io.h"

namespace stormguard::config::config_internal {

// The document, or nullopt after adding why not to `errors` (too large, too
// deep, a key twice in one object, a syntax error, a number out of range).
std::optional<Json> ParseDocument(std::string_view text, Errors& errors);

}  // namespace stormguard::config::config_internal
