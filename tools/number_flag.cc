#include "number_flag.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace stormguard::cli {
namespace {

std::string Short(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

CLI::Validator FiniteRange(double lo, double hi) {
  const std::string range = "[" + Short(lo) + ", " + Short(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, value, std::chars_format::general);
        if (ec != std::errc() || stop != end || !std::isfinite(value)) {
          return "'" + text + "' is not a finite number";
        }
        if (value < lo || value > hi) return "'" + text + "' is not in " + range;
        return "";
      },
      "NUMBER in " + range, "finite range");
}

CLI::Option* AddSeedOption(CLI::App& app, std::uint64_t& seed, const std::string& description) {
  CLI::Validator digits(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc() && stop == end) return "";
        return "'" + text + "' is not an integer from 0 to 18446744073709551615";
      },
      "", "seed");
  return app.add_option("--seed", seed, description)->check(digits)->capture_default_str();
}

}  // namespace stormguard::cli
