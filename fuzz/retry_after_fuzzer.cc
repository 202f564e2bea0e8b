// Retry-After: delay-seconds or an HTTP-date, as the pause from `now`.
//
// Input: "<unix_now_ms>\n<header value>" (see fuzz_input.h); the first 8
// bytes of the value also give a Duration to encode.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "fuzz_input.h"
#include "stormguard/wire/http_date.h"
#include "stormguard/wire/http_headers.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;
using std::chrono::milliseconds;
using std::chrono::seconds;
using stormguard::Duration;
using stormguard::kMaxWireDuration;

// The pause until Unix second `date` at `now_ms`, computed in whole seconds
// first so that no clock overflows it: zero once passed, at most
// kMaxWireDuration.
Duration PauseUntil(std::int64_t date, std::int64_t now_ms) {
  const std::int64_t now_s = now_ms / 1000 - (now_ms % 1000 < 0 ? 1 : 0);
  const std::int64_t now_rest_ms = now_ms % 1000 < 0 ? now_ms % 1000 + 1000 : now_ms % 1000;  // [0, 999]
  std::int64_t left_s = 0;
  if (__builtin_sub_overflow(date, now_s, &left_s)) return date > now_s ? kMaxWireDuration : Duration::zero();
  if (left_s <= 0) return Duration::zero();
  if (left_s > kMaxWireDuration / seconds(1)) return kMaxWireDuration;
  return std::min(Duration(milliseconds(left_s * 1000 - now_rest_ms)), kMaxWireDuration);
}

// delay-seconds: 1 to 18 digits between optional SP/HTAB, or nullopt.
std::optional<std::int64_t> DelaySeconds(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  s = s.substr(first, s.find_last_not_of(" \t") - first + 1);
  if (s.size() > 18) return std::nullopt;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return fz::NumberAt(s, 0, -1);
}

// The pause a client reads back is the one sent, rounded up to the second.
void CheckEncode(Duration pause, std::int64_t now_ms) {
  const auto back = stormguard::DecodeRetryAfter(stormguard::EncodeRetryAfter(pause), now_ms);
  Require(back.has_value(), "every encoded pause decodes");
  const Duration want = std::min(std::max(pause, Duration::zero()), kMaxWireDuration);
  Require(*back >= want && *back - want < seconds(1), "encoding rounds up to the second");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [line, value] = fz::SplitFirstLine(fz::AsText(data, size));
  const std::int64_t now_ms = fz::NumberAt(line, 0, fz::kDefaultUnixMs);
  if (const auto d = stormguard::DecodeRetryAfter(value, now_ms)) {
    Require(*d >= Duration::zero() && *d <= kMaxWireDuration, "a pause within [0, kMaxWireDuration]");
    if (const auto delay = DelaySeconds(value)) {
      const bool huge = *delay >= kMaxWireDuration / seconds(1);  // compared in s: no overflow
      Require(*d == (huge ? kMaxWireDuration : Duration(seconds(*delay))), "seconds, clamped");
    } else {
      const auto date = stormguard::ParseHttpDate(value, now_ms);
      Require(date.has_value(), "not seconds, so an HTTP-date");
      Require(*d == PauseUntil(*date, now_ms), "a date gives the time until it, clamped");
    }
    CheckEncode(*d, now_ms);
  }
  CheckEncode(Duration(fz::FirstInt64(value)), now_ms);
  return 0;
}
