// tests/config/config_test_util.h: what the configuration tests share.
#pragma once

#include <gmock/gmock.h>

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/config/config_json.h"

namespace stormguard::config::testkit {

// Every error ParseConfigText reports for `text`.
inline std::vector<std::string> ErrorsOf(std::string_view text) { return ParseConfigText(text).errors; }

// `text` with one destination "inventory" whose body is `destination`.
inline std::string Inventory(std::string_view destination) {
  return R"({"destinations": {"inventory": )" + std::string(destination) + "}}";
}

}  // namespace stormguard::config::testkit
