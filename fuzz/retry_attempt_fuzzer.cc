// x-retry-attempt: the attempt number, 1 for the first try; and
// x-envoy-attempt-count, which must decode exactly as it does.
//
// Input: the header value. Its first 4 bytes also give an int to encode.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "stormguard/wire/http_headers.h"

using stormguard::fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = stormguard::fuzz::AsText(data, size);
  Require(stormguard::DecodeEnvoyAttemptCount(text) == stormguard::DecodeRetryAttempt(text),
          "Envoy's attempt count reads as ours");
  if (const auto n = stormguard::DecodeRetryAttempt(text)) {
    Require(*n >= 1, "attempts count from 1");
    Require(stormguard::DecodeRetryAttempt(stormguard::EncodeRetryAttempt(*n)) == n, "a decoded attempt round-trips");
  }
  const int attempt = static_cast<int>(stormguard::fuzz::FirstInt64(text));
  const auto back = stormguard::DecodeRetryAttempt(stormguard::EncodeRetryAttempt(attempt));
  Require(attempt >= 1 ? back == attempt : !back.has_value(),
          "a real attempt round-trips; zero or negative is never read back");
  return 0;
}
