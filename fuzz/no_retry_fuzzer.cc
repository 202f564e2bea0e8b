// x-no-retry: "1"/"true" or "0"/"false" (any case), optional whitespace.
//
// Input: the header value.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "stormguard/wire/http_headers.h"

namespace {

// The value without surrounding SP/HTAB, lower-cased: an independent oracle.
std::string Normalized(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  text = text.substr(first, text.find_last_not_of(" \t") - first + 1);
  std::string out(text);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using stormguard::fuzz::Require;
  const std::string_view text = stormguard::fuzz::AsText(data, size);
  const std::string v = Normalized(text);
  const auto flag = stormguard::DecodeNoRetry(text);
  if (v == "1" || v == "true") {
    Require(flag == true, "1 and true mean do not retry");
  } else if (v == "0" || v == "false") {
    Require(flag == false, "0 and false mean retries are fine");
  } else {
    Require(!flag.has_value(), "anything else is garbage");
  }
  Require(stormguard::DecodeNoRetry(stormguard::kNoRetryValue) == true, "what we send reads as true");
  return 0;
}
