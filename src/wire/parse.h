// Private helpers shared by the wire codecs: strict decimal parsing, the
// optional whitespace HTTP allows around a field value, and checked
// arithmetic for numbers a peer controls. Not installed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stormguard::wire_internal {

// The most digits a decimal field may have: 18 digits always fit an int64.
inline constexpr std::size_t kMaxDecimalDigits = 18;

// Strips leading and trailing SP / HTAB (RFC 9110 section 5.5).
constexpr std::string_view TrimOws(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// 1 to `max_digits` ASCII digits and nothing else (no sign, no space).
constexpr std::optional<std::int64_t> ParseDigits(std::string_view s,
                                                  std::size_t max_digits = kMaxDecimalDigits) noexcept {
  if (s.empty() || s.size() > max_digits || s.size() > kMaxDecimalDigits) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// a * b + c, or nullopt when any step leaves int64: peer-controlled numbers
// never reach unchecked arithmetic.
constexpr std::optional<std::int64_t> CheckedMulAdd(std::int64_t a, std::int64_t b, std::int64_t c) noexcept {
  std::int64_t product = 0;
  std::int64_t sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) {
    return std::nullopt;
  }
  return sum;
}

}  // namespace stormguard::wire_internal
