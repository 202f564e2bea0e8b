// fuzz/fuzz_input.h: what every harness shares: turning the fuzzer's bytes
// into readable inputs, and failing loudly when an invariant breaks.
//
// Inputs stay text, so seeds are easy to write and read:
//   - a header value alone ("842", "15S");
//   - a first line of whitespace-separated integers (the wall clock and
//     limits a decoder needs), then the header value or header lines:
//       1764547200000
//       Sun, 06 Nov 1994 08:49:37 GMT
// A number missing from the first line, or out of int64's range, takes the
// harness's default, so every input runs.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stormguard::fuzz {

// A plausible wall clock (2025-12-01, Unix ms) for inputs that give none.
inline constexpr std::int64_t kDefaultUnixMs = 1'764'547'200'000;

// Aborts naming the broken invariant; libFuzzer prints the stack (file and
// line) and saves the input.
inline void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::abort();
}

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The text before the first '\n', and the rest (without that '\n').
inline std::pair<std::string_view, std::string_view> SplitFirstLine(std::string_view text) {
  const std::size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return {text, {}};
  return {text.substr(0, nl), text.substr(nl + 1)};
}

// The `index`-th whitespace-separated int64 of `line`, or `fallback`.
inline std::int64_t NumberAt(std::string_view line, std::size_t index, std::int64_t fallback) {
  std::size_t pos = 0;
  for (std::size_t i = 0;; ++i) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) return fallback;
    const std::size_t end = std::min(line.find_first_of(" \t", pos), line.size());
    if (i == index) {
      std::int64_t v = 0;
      const auto [stop, ec] = std::from_chars(line.data() + pos, line.data() + end, v);
      return ec == std::errc() && stop == line.data() + end ? v : fallback;
    }
    pos = end;
  }
}

// The first 8 bytes as an int64 (zero-padded), for encoders that take any value.
inline std::int64_t FirstInt64(std::string_view text) {
  std::int64_t v = 0;
  if (!text.empty()) std::memcpy(&v, text.data(), std::min(text.size(), sizeof v));
  return v;
}

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// Lines "name: value" (or "name:value") in order; a line without ':' is a
// name with an empty value. Kept in order, duplicates and all.
inline HeaderList ParseHeaderLines(std::string_view text) {
  HeaderList out;
  while (!text.empty()) {
    auto [line, rest] = SplitFirstLine(text);
    text = rest;
    const std::size_t colon = std::min(line.find(':'), line.size());
    std::string_view value = line.substr(std::min(colon + 1, line.size()));
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    out.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  return out;
}

}  // namespace stormguard::fuzz
