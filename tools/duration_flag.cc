#include "duration_flag.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace stormguard::cli {
namespace {

using namespace std::chrono_literals;

constexpr std::array<std::pair<std::string_view, Duration>, 6> kUnits = {{
    {"h", 1h}, {"m", 1min}, {"s", 1s}, {"ms", 1ms}, {"us", 1us}, {"ns", 1ns}}};

std::optional<Duration> UnitSize(std::string_view unit) {
  for (const auto& [name, size] : kUnits) {
    if (name == unit) return size;
  }
  return std::nullopt;
}

bool IsNumberChar(char c) { return (c >= '0' && c <= '9') || c == '.'; }

}  // namespace

std::optional<Duration> ParseDuration(std::string_view text) {
  std::size_t split = 0;
  while (split < text.size() && IsNumberChar(text[split])) ++split;
  const std::string_view number = text.substr(0, split);
  const std::string_view unit = text.substr(split);
  if (number.empty()) return std::nullopt;

  double value = 0;
  const char* end = number.data() + number.size();
  const auto [stop, ec] = std::from_chars(number.data(), end, value, std::chars_format::fixed);
  if (ec != std::errc() || stop != end) return std::nullopt;
  if (unit.empty()) return value == 0 ? std::optional(Duration::zero()) : std::nullopt;

  const std::optional<Duration> size = UnitSize(unit);
  if (!size) return std::nullopt;
  const double ns = value * static_cast<double>(size->count());
  // 2^63 as a double: anything at or above it does not fit a Duration.
  if (!(ns < static_cast<double>(Duration::max().count()))) return std::nullopt;
  return Duration(std::llround(ns));
}

std::string FormatNumber(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", value);
  std::string out(buf);
  out.erase(out.find_last_not_of('0') + 1);
  if (out.back() == '.') out.pop_back();
  return out == "-0" ? "0" : out;
}

CLI::Validator DurationValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (const std::optional<Duration> d = ParseDuration(text)) {
          if (*d <= kMaxFlagDuration) return "";
          return "'" + text + "' is more than " + FormatDuration(kMaxFlagDuration);
        }
        if (!text.empty() && text[0] == '-' && ParseDuration(text.substr(1))) {
          return "'" + text + "' must not be negative";
        }
        return "'" + text + "' is not a duration (use ns, us, ms, s, m, h)";
      },
      "", "duration");
}

CLI::Option* AddDurationOption(CLI::App& app, const std::string& name, Duration& target,
                               const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&target](const std::string& text) { target = *ParseDuration(text); },
          description)
      ->check(DurationValidator())
      ->type_name("DURATION")
      ->default_str(FormatDuration(target));
}

}  // namespace stormguard::cli
