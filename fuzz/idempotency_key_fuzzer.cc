// Idempotency-Key: 1 to max_length printable ASCII characters, decoded
// without surrounding whitespace; and a key's trip from InjectHttp to Extract.
//
// Input: the header value (also sent as a CallContext's key).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "fuzz_input.h"
#include "stormguard/wire/propagation.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;

std::string_view TrimOws(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool Printable(std::string_view s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

void CheckDecode(std::string_view text, std::size_t max_length) {
  const auto key = stormguard::DecodeIdempotencyKey(text, max_length);
  const std::string_view want = TrimOws(text);
  const bool valid = !want.empty() && want.size() <= max_length && Printable(want);
  Require(key.has_value() == valid, "decodes exactly the printable keys that fit");
  if (!key) return;
  Require(*key == want, "the key is the value without its surrounding whitespace");
  Require(key->data() >= text.data() && key->data() + key->size() <= text.data() + text.size(),
          "the key is a view into the value, not a copy");
}

// A key the client sends reaches the server unchanged; one it may not send
// is left out rather than mangled.
void CheckTrip(std::string_view key) {
  const stormguard::TimePoint now{};
  stormguard::CallContext ctx{.idempotency_key = std::string(key)};
  std::map<std::string, std::string> headers;
  stormguard::InjectHttp(ctx, now, fz::kDefaultUnixMs, headers);
  const auto in = stormguard::Extract(headers, now, fz::kDefaultUnixMs);
  const bool sendable = stormguard::IsValidIdempotencyKey(key);
  Require(in.context.idempotency_key == (sendable ? key : std::string_view()), "a sent key arrives intact");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fz::AsText(data, size);
  CheckDecode(text, stormguard::kMaxIdempotencyKeyLength);
  CheckDecode(text, 8);
  CheckTrip(text);
  return 0;
}
