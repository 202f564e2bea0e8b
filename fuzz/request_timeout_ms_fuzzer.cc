// x-request-timeout-ms (and x-envoy-expected-rq-timeout-ms, which shares its
// decoder): decimal milliseconds, optional whitespace around them.
//
// Input: the header value. Its first 8 bytes also give a Duration to encode.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "stormguard/wire/http_headers.h"

namespace {

using std::chrono::milliseconds;
using stormguard::Duration;
using stormguard::kMaxWireDuration;
using stormguard::fuzz::Require;

bool IsOws(char c) { return c == ' ' || c == '\t'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = stormguard::fuzz::AsText(data, size);
  if (const auto d = stormguard::DecodeRequestTimeoutMs(text)) {
    Require(*d >= Duration::zero() && *d <= kMaxWireDuration, "budget within [0, kMaxWireDuration]");
    Require(*d % milliseconds(1) == Duration::zero(), "whole milliseconds");
    for (const char c : text) Require((c >= '0' && c <= '9') || IsOws(c), "only digits and OWS decode");
    const auto back = stormguard::DecodeRequestTimeoutMs(stormguard::EncodeRequestTimeoutMs(*d));
    Require(back == d, "a decoded budget round-trips");
  }
  // Encoding rounds down: the next hop never gets more than what is left.
  const Duration left(stormguard::fuzz::FirstInt64(text));
  const auto sent = stormguard::DecodeRequestTimeoutMs(stormguard::EncodeRequestTimeoutMs(left));
  Require(sent.has_value(), "every encoding decodes");
  const Duration expected = std::min(std::max(left, Duration::zero()), kMaxWireDuration);
  Require(*sent <= expected && expected - *sent < milliseconds(1), "encoding floors to the ms");
  return 0;
}
