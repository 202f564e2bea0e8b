// grpc-timeout: the strict decoder, and the encoder on any Duration.
//
// Input: the header value. Its first 8 bytes also give a Duration to encode.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "stormguard/wire/grpc_timeout.h"

namespace {

using stormguard::Duration;
using stormguard::fuzz::Require;

// The size of the unit an encoded value ends in.
Duration UnitOf(std::string_view encoded) {
  switch (encoded.back()) {
    case 'n': return std::chrono::nanoseconds(1);
    case 'u': return std::chrono::microseconds(1);
    case 'm': return std::chrono::milliseconds(1);
    case 'S': return std::chrono::seconds(1);
    case 'M': return std::chrono::minutes(1);
    default: return std::chrono::hours(1);
  }
}

// Encoding never shortens a budget, lengthens it by less than one unit, and
// always decodes.
void CheckEncode(Duration timeout) {
  const stormguard::WireText text = stormguard::EncodeGrpcTimeout(timeout);
  const std::string_view v = text.view();
  Require(v.size() >= 2 && v.size() <= 9, "at most 8 digits and a unit");
  const auto back = stormguard::DecodeGrpcTimeout(v);
  Require(back.has_value(), "every encoding decodes");
  const Duration floor = std::max(timeout, Duration(1));  // spent encodes as 1n
  Require(*back >= floor, "encoding never shortens the budget");
  if (*back != stormguard::kInfiniteDuration) {
    Require(*back - floor < UnitOf(v), "encoding adds less than one unit");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = stormguard::fuzz::AsText(data, size);
  if (const auto d = stormguard::DecodeGrpcTimeout(text)) {
    Require(*d >= Duration::zero(), "a decoded timeout is never negative");
    Require(text.size() >= 2 && text.size() <= 9, "only 1 to 8 digits and a unit decode");
    for (const char c : text.substr(0, text.size() - 1)) Require(c >= '0' && c <= '9', "digits only");
    CheckEncode(*d);
  }
  CheckEncode(Duration(stormguard::fuzz::FirstInt64(text)));
  return 0;
}
