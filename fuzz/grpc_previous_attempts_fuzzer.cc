// grpc-previous-rpc-attempts: attempts before this one; strict (no spaces).
//
// Input: the header value. Its first 4 bytes also give an int to encode.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "stormguard/wire/http_headers.h"

using stormguard::fuzz::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = stormguard::fuzz::AsText(data, size);
  if (const auto n = stormguard::DecodeGrpcPreviousAttempts(text)) {
    Require(*n >= 0, "a count of previous attempts is never negative");
    for (const char c : text) Require(c >= '0' && c <= '9', "gRPC metadata: digits only");
    const auto back = stormguard::DecodeGrpcPreviousAttempts(stormguard::EncodeGrpcPreviousAttempts(*n));
    Require(back == n, "a decoded count round-trips");
  }
  const int previous = static_cast<int>(stormguard::fuzz::FirstInt64(text));
  const auto back = stormguard::DecodeGrpcPreviousAttempts(stormguard::EncodeGrpcPreviousAttempts(previous));
  Require(previous >= 0 ? back == previous : !back.has_value(),
          "a count round-trips; a negative one is never read back");
  return 0;
}
