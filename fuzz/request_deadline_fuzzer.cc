// x-request-deadline: absolute Unix ms, read as the time left at `now`.
//
// Input: "<unix_now_ms>\n<header value>" (see fuzz_input.h); the first 8
// bytes of the value also give a Duration to encode.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "stormguard/wire/http_headers.h"

namespace {

using std::chrono::milliseconds;
using stormguard::Duration;
using stormguard::kMaxWireDuration;
using stormguard::fuzz::Require;

// The largest instant the header can carry: 18 digits.
constexpr std::int64_t kMaxWireInstant = 999'999'999'999'999'999;

// Encoding the time left and decoding it at the same `now` gives it back,
// floored to the ms, whenever the instant fits the header at all.
void CheckRoundTrip(Duration left, std::int64_t now_ms) {
  const auto text = stormguard::EncodeRequestDeadline(left, now_ms);
  const std::int64_t left_ms = left.count() <= 0 ? 0 : left / milliseconds(1);
  std::int64_t at = 0;
  if (__builtin_add_overflow(now_ms, left_ms, &at) || at < 0 || at > kMaxWireInstant) return;
  const auto back = stormguard::DecodeRequestDeadline(text, now_ms);
  Require(back.has_value(), "an instant of at most 18 digits decodes");
  Require(*back == std::min(Duration(milliseconds(left_ms)), kMaxWireDuration),
          "the time left round-trips, floored to the ms");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [line, value] = stormguard::fuzz::SplitFirstLine(stormguard::fuzz::AsText(data, size));
  const std::int64_t now_ms = stormguard::fuzz::NumberAt(line, 0, stormguard::fuzz::kDefaultUnixMs);
  if (const auto d = stormguard::DecodeRequestDeadline(value, now_ms)) {
    Require(*d >= Duration::zero() && *d <= kMaxWireDuration, "time left within [0, kMaxWireDuration]");
    Require(*d % milliseconds(1) == Duration::zero(), "whole milliseconds");
    CheckRoundTrip(*d, now_ms);
  }
  CheckRoundTrip(Duration(stormguard::fuzz::FirstInt64(value)), now_ms);
  return 0;
}
