// The CLI's durations ("100ms", "1.5s", "2m"): ParseDuration, its CLI11
// check, and the library's FormatDuration read back.
//
// Input: the flag's text. Its first 8 bytes also give a Duration to format.
#include <cstddef>
#include <cstdint>
#include <string>

#include "duration_flag.h"
#include "fuzz_input.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;
using stormguard::Duration;

// A printed duration reads back within half its last printed digit (a
// thousandth of its unit), plus double rounding on huge values.
void CheckFormat(Duration d) {
  const std::string text = stormguard::FormatDuration(d);
  const auto back = stormguard::cli::ParseDuration(text);
  Require(back.has_value(), "every printed duration parses");
  const std::size_t unit_at = text.find_first_not_of("0123456789.");
  Require(unit_at != std::string::npos, "a printed duration has a unit");
  const auto unit = stormguard::cli::ParseDuration("1" + text.substr(unit_at));
  Require(unit.has_value(), "the printed unit is one ParseDuration knows");
  const Duration tolerance = *unit / 2000 + Duration(1) + d / (std::int64_t{1} << 40);
  const Duration error = *back > d ? *back - d : d - *back;
  Require(error <= tolerance, "a printed duration reads back as itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fz::AsText(data, size));
  const auto d = stormguard::cli::ParseDuration(text);
  std::string message = stormguard::cli::DurationValidator()(text);
  const bool in_range = d && *d <= stormguard::cli::kMaxFlagDuration;
  Require(in_range == message.empty(), "the CLI check accepts exactly what parses up to the cap");
  if (d) {
    Require(*d >= Duration::zero(), "a duration is never negative");
    CheckFormat(*d);
  }
  if (!in_range) Require(message.find(text) != std::string::npos, "the error names the rejected text");
  // kInfiniteDuration prints as "inf", which no flag takes: it is never a flag's value.
  const Duration any(fz::FirstInt64(text));
  if (any >= Duration::zero() && any != stormguard::kInfiniteDuration) CheckFormat(any);
  return 0;
}
