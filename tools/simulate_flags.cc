#include "simulate_flags.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace stormguard::cli::simflags {
namespace {
using namespace std::chrono_literals;

constexpr std::pair<std::string_view, Duration> kUnits[] = {
    {"ns", 1ns}, {"us", 1us}, {"ms", 1ms}, {"s", 1s}, {"m", 1min}, {"h", 1h}};

}  // namespace

std::optional<Duration> ParseSimDuration(std::string_view text) {
  std::size_t split = 0;
  while (split < text.size() && ((text[split] >= '0' && text[split] <= '9') || text[split] == '.')) ++split;
  double value = 0;
  const char* end = text.data() + split;
  const auto [stop, ec] = std::from_chars(text.data(), end, value, std::chars_format::fixed);
  if (split == 0 || ec != std::errc() || stop != end) return std::nullopt;
  const std::string_view unit = text.substr(split);
  if (unit.empty() && value == 0) return Duration::zero();
  for (const auto& [name, size] : kUnits) {
    if (name != unit) continue;
    const double ns = value * static_cast<double>(size.count());
    if (!(ns < static_cast<double>(Duration::max().count()))) return std::nullopt;
    return Duration(std::llround(ns));
  }
  return std::nullopt;
}

CLI::Option* AddDuration(CLI::App& app, const std::string& name, Duration& target, const std::string& help) {
  auto* opt = app.add_option_function<std::string>(
      name,
      [&target, name](const std::string& text) {
        const std::optional<Duration> d = ParseSimDuration(text);
        if (!d) throw CLI::ValidationError(name, "'" + text + "' is not a duration (use ns, us, ms, s, m, h)");
        target = *d;
      },
      help);
  opt->default_str(ShowDuration(target));
  return opt;
}

std::string ShowDuration(Duration d) {
  const double ns = static_cast<double>(d.count());
  const char* unit = "s";
  double v = ns / 1e9;
  if (d < 1ms) {
    unit = "us";
    v = ns / 1e3;
  } else if (d < 1s) {
    unit = "ms";
    v = ns / 1e6;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string out(buf);
  out.erase(out.find_last_not_of('0') + 1);
  if (out.back() == '.') out.pop_back();
  return out + unit;
}

}  // namespace stormguard::cli::simflags
