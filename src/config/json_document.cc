#include "json_document.h"

#include <set>
#include <string>
#include <vector>

#include "stormguard/config/config_json.h"

namespace stormguard::config {
namespace config_internal {
namespace {

// A first pass over the text that builds nothing: it checks the depth and
// that no object repeats a key, and keeps the parser's own error. (nlohmann's
// DOM-building callback parser would do the same in quadratic time.)
class Checker final : public nlohmann::json_sax<Json> {
 public:
  std::string where = "document";  // the object that repeats a key
  std::string error;

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Enter(false); }
  bool key(string_t& k) override {
    Open& o = open_.back();
    o.key = k;
    if (o.keys.insert(k).second) return true;
    where = Path();
    error = "has the key \"" + k.substr(0, 64) + "\" twice in one object";
    return false;
  }
  bool end_object() override { return Leave(); }
  bool start_array(std::size_t) override { return Enter(true); }
  bool end_array() override { return Leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = WithoutTag(e.what());
    return false;
  }

 private:
  // "[json.exception.parse_error.101] parse error at line 1..." -> "parse error at line 1...".
  static std::string WithoutTag(const char* what) {
    std::string text(what);
    const std::size_t tag_end = text.find("] ");
    return tag_end == std::string::npos ? text : text.substr(tag_end + 2);
  }
  // An object or array not yet closed: where in it the parser is.
  struct Open {
    bool array = false;
    std::size_t items = 0;                    // an array's items so far
    std::string key;                          // an object's current key
    std::set<std::string, std::less<>> keys;  // an object's keys so far
  };

  // Every value (an object or array too) is the next item of an open array.
  bool Value() {
    if (!open_.empty() && open_.back().array) ++open_.back().items;
    return true;
  }
  bool Enter(bool array) {
    Value();
    open_.push_back({.array = array, .items = 0, .key = {}, .keys = {}});
    if (open_.size() <= static_cast<std::size_t>(kMaxConfigDepth)) return true;
    error = "is nested more than " + std::to_string(kMaxConfigDepth) + " levels deep";
    return false;
  }
  bool Leave() {
    open_.pop_back();
    return true;
  }
  // The innermost open value's path, e.g. services[1] or a.b.
  std::string Path() const {
    std::string path;
    for (std::size_t i = 0; i + 1 < open_.size(); ++i) {
      const Open& o = open_[i];
      path = o.array ? IndexPath(path, o.items - 1) : ChildPath(path, o.key);
    }
    return path.empty() ? "document" : path;
  }

  std::vector<Open> open_;  // innermost last; at most kMaxConfigDepth + 1
};

}  // namespace
}  // namespace config_internal

std::vector<std::string> CheckJsonText(std::string_view text) {
  if (text.size() > kMaxConfigBytes) {
    return {"document: is " + std::to_string(text.size()) + " bytes, more than the limit of " +
            std::to_string(kMaxConfigBytes)};
  }
  // The parser reads a NUL as the end of the input and would ignore what
  // follows it; JSON text holds none (one in a string must be escaped).
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return {"document: has a NUL byte at offset " + std::to_string(nul) + " (JSON text has none)"};
  }
  config_internal::Checker checker;
  if (config_internal::Json::sax_parse(text.begin(), text.end(), &checker)) return {};
  return {checker.where + ": " + checker.error};
}

namespace config_internal {

std::optional<Json> ParseDocument(std::string_view text, Errors& errors) {
  Errors problems = CheckJsonText(text);
  if (!problems.empty()) {
    errors.insert(errors.end(), problems.begin(), problems.end());
    return std::nullopt;
  }
  // The same text again, now known to be well-formed and bounded.
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace config_internal
}  // namespace stormguard::config
