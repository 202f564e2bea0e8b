#include "json_document.h"

#include <set>
#include <string>
#include <vector>

#include "stormguard/config/config_json.h"

namespace stormguard::config::config_internal {
namespace {

// A first pass over the text that builds nothing: it checks the depth and
// that no object repeats a key, and keeps the parser's own error. (nlohmann's
// DOM-building callback parser would do the same in quadratic time.)
class Checker final : public nlohmann::json_sax<Json> {
 public:
  std::string error;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return Enter();
  }
  bool key(string_t& k) override {
    if (keys_.back().insert(k).second) return true;
    error = "has the key \"" + k.substr(0, 64) + "\" twice in one object";
    return false;
  }
  bool end_object() override {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override { return Enter(); }
  bool end_array() override {
    --depth_;
    return true;
  }
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
  bool Enter() {
    if (++depth_ <= kMaxConfigDepth) return true;
    error = "is nested more than " + std::to_string(kMaxConfigDepth) + " levels deep";
    return false;
  }

  int depth_ = 0;
  std::vector<std::set<std::string, std::less<>>> keys_;  // of every open object, innermost last
};

}  // namespace

std::optional<Json> ParseDocument(std::string_view text, Errors& errors) {
  if (text.size() > kMaxConfigBytes) {
    errors.push_back("document: is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                     std::to_string(kMaxConfigBytes));
    return std::nullopt;
  }
  Checker checker;
  if (!Json::sax_parse(text.begin(), text.end(), &checker)) {
    errors.push_back("document: " + checker.error);
    return std::nullopt;
  }
  // The same text again, now known to be well-formed and bounded.
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace stormguard::config::config_internal
