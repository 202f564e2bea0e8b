#include "json_document.h"

#include <set>
#include <string>
#include <vector>

#include "stormguard/config/config_json.h"

namespace stormguard::config::config_internal {
namespace {

// Stops the parser from inside its callback.
struct Refused {
  std::string reason;
};

// "[json.exception.parse_error.101] parse error at line 1..." -> "parse error at line 1...".
std::string WithoutTag(const char* what) {
  std::string text(what);
  const std::size_t tag_end = text.find("] ");
  return tag_end == std::string::npos ? text : text.substr(tag_end + 2);
}

}  // namespace

std::optional<Json> ParseDocument(std::string_view text, Errors& errors) {
  if (text.size() > kMaxConfigBytes) {
    errors.push_back("document: is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                     std::to_string(kMaxConfigBytes));
    return std::nullopt;
  }
  // The keys of every object being read, innermost last.
  std::vector<std::set<std::string, std::less<>>> open_keys;
  const Json::parser_callback_t check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (depth >= kMaxConfigDepth) {
          throw Refused{"is nested more than " + std::to_string(kMaxConfigDepth) + " levels deep"};
        }
        if (event == Json::parse_event_t::object_start) open_keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open_keys.empty()) open_keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open_keys.empty() && !open_keys.back().insert(parsed.get<std::string>()).second) {
          std::string key = parsed.get<std::string>().substr(0, 64);
          throw Refused{"has the key \"" + key + "\" twice in one object"};
        }
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Refused& r) {
    errors.push_back("document: " + r.reason);
  } catch (const Json::exception& e) {
    errors.push_back("document: " + WithoutTag(e.what()));
  }
  return std::nullopt;
}

}  // namespace stormguard::config::config_internal
