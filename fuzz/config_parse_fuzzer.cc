// ParseConfigText over any text: our format and gRPC service configs.
//
// Invariants: it never throws; every error reads "path: reason" and is
// short; a config read without errors writes (ToJson) to a document that
// reads back without errors and writes back to the very same text.
//
// Input: the document itself.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_input.h"
#include "stormguard/config/config_json.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;
using stormguard::config::ParseConfigText;
using stormguard::config::ParsedConfig;

void CheckErrors(const ParsedConfig& parsed) {
  for (const std::string& e : parsed.errors) {
    Require(e.find(": ") != std::string::npos, "every error is 'path: reason'");
    // A path of at most 16 levels of 256-byte names, and a value cut short.
    Require(e.size() < 16 * 300 + 400, "errors stay short");
  }
}

void CheckRoundTrip(const ParsedConfig& parsed) {
  if (!parsed.errors.empty()) return;
  const std::string once = stormguard::config::ToJson(parsed.config);
  const ParsedConfig again = ParseConfigText(once);
  Require(again.errors.empty(), "what ToJson writes reads back without errors");
  Require(stormguard::config::ToJson(again.config) == once, "ToJson(ParseConfigText(ToJson(c))) == ToJson(c)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ParsedConfig parsed = ParseConfigText(fz::AsText(data, size));
    CheckErrors(parsed);
    CheckRoundTrip(parsed);
  } catch (const std::exception&) {
    Require(false, "ParseConfigText never throws");
  }
  return 0;
}
