// The CLI's durations ("100ms", "1.5s", "2m"): ParseDuration (the
// configuration's parser with the CLI's bound), its CLI11 check, and the
// library's FormatDuration and the exact FormatDurationText read back.
//
// Input: the flag's text. Its first 8 bytes also give a Duration to format.
#include <cstddef>
#include <cstdint>
#include <string>

#include "duration_flag.h"
#include "fuzz_input.h"
#include "stormguard/config/duration_text.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;
using stormguard::Duration;

// A duration a flag takes: FormatDurationText reads back exactly, and
// FormatDuration within half its last printed digit (a thousandth of its unit).
void CheckFormat(Duration d) {
  const auto exact = stormguard::cli::ParseDuration(stormguard::config::FormatDurationText(d));
  Require(exact.ok() && *exact == d, "an exactly printed duration reads back as itself");
  const std::string text = stormguard::FormatDuration(d);
  const auto back = stormguard::cli::ParseDuration(text);
  Require(back.ok(), "every printed duration parses");
  const std::size_t unit_at = text.find_first_not_of("0123456789.");
  Require(unit_at != std::string::npos, "a printed duration has a unit");
  const auto unit = stormguard::cli::ParseDuration("1" + text.substr(unit_at));
  Require(unit.ok(), "the printed unit is one ParseDuration knows");
  const Duration tolerance = *unit / 2000 + Duration(1);
  const Duration error = *back > d ? *back - d : d - *back;
  Require(error <= tolerance, "a printed duration reads back as itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fz::AsText(data, size));
  const auto d = stormguard::cli::ParseDuration(text);
  std::string message = stormguard::cli::DurationValidator()(text);
  Require(d.ok() == message.empty(), "the CLI check accepts exactly what parses");
  if (d.ok()) {
    Require(*d >= Duration::zero() && *d <= stormguard::cli::kMaxFlagDuration, "a flag's duration is in range");
    CheckFormat(*d);
  } else if (text.size() <= stormguard::config::kMaxDurationTextLength) {
    Require(message.find(text) != std::string::npos, "the error names the rejected text");
  }
  // Every duration in a flag's range prints as one a flag takes.
  const Duration any(fz::FirstInt64(text));
  if (any >= Duration::zero() && any <= stormguard::cli::kMaxFlagDuration) CheckFormat(any);
  return 0;
}
