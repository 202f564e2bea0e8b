// stormguard/wire/wire_text.h: an encoded header value that never allocates.
//
// Every wire encoder returns a WireText: a short string kept inline (at most
// 24 characters, enough for any int64 and for every grpc-timeout), so
// stamping headers on each outgoing call costs no heap allocation until the
// header map itself copies the value.
//
//   WireText t = WireText::Decimal(842);
//   headers.emplace("x-request-timeout-ms", t.view());   // "842"
//
// Thread safety: a plain value type.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stormguard {

class WireText {
 public:
  static constexpr std::size_t kCapacity = 24;

  constexpr WireText() noexcept = default;

  // The decimal digits of `v`, with a leading '-' when negative.
  static constexpr WireText Decimal(std::int64_t v) noexcept {
    WireText out;
    // Work on the magnitude as unsigned so INT64_MIN does not overflow.
    std::uint64_t mag = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    std::array<char, 20> digits{};
    std::size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + mag % 10);
      mag /= 10;
    } while (mag != 0);
    if (v < 0) out.Append('-');
    while (n > 0) out.Append(digits[--n]);
    return out;
  }

  // Appends one character; silently ignored past kCapacity (encoders never
  // get there: their longest output is 20 characters).
  constexpr WireText& Append(char c) noexcept {
    if (size_ < kCapacity) buf_[size_++] = c;
    return *this;
  }

  constexpr std::string_view view() const noexcept { return {buf_.data(), size_}; }
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT: a view, like std::string
  std::string str() const { return std::string(view()); }

 private:
  std::array<char, kCapacity> buf_{};
  std::size_t size_ = 0;
};

}  // namespace stormguard
