#include "duration_flag.h"

#include <cstdio>

#include "stormguard/config/duration_text.h"

namespace stormguard::cli {

Result<Duration> ParseDuration(std::string_view text) {
  // "0" needs no unit: zero is zero in every unit, and scripts pass it.
  if (text == "0") return Duration::zero();
  return config::ParseDurationText(text, {.max = kMaxFlagDuration, .infinite = false});
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
        const Result<Duration> d = ParseDuration(text);
        return d.ok() ? "" : d.status().message();
      },
      "", "duration");
}

CLI::Option* AddDurationOption(CLI::App& app, const std::string& name, Duration& target,
                               const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&target](const std::string& text) { target = *ParseDuration(text); }, description)
      ->check(DurationValidator())
      ->type_name("DURATION")
      ->default_str(FormatDuration(target));
}

}  // namespace stormguard::cli
