#include "render/printable.h"

namespace stormguard::render {
namespace {

// The length of the valid UTF-8 sequence at text[i] when it encodes no
// control character; 0 when the byte there must be escaped.
std::size_t PlainSequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead >= 0x20 && lead < 0x7f) return 1;
  const std::size_t n = lead >= 0xc2 && lead <= 0xdf   ? 2
                        : lead >= 0xe0 && lead <= 0xef ? 3
                        : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                       : 0;
  if (n == 0 || text.size() - i < n) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  }
  const unsigned char second = byte(i + 1);
  if (lead == 0xc2 && second < 0xa0) return 0;                                       // U+0080..U+009F: the C1 controls
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xf0 && second < 0x90)) return 0;  // overlong
  if ((lead == 0xed && second >= 0xa0) || (lead == 0xf4 && second >= 0x90)) return 0;  // surrogate, > U+10FFFF
  return n;
}

}  // namespace

bool IsPrintable(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = PlainSequence(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = PlainSequence(text, i); n > 0) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    const auto b = static_cast<unsigned char>(text[i++]);
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

}  // namespace stormguard::render
