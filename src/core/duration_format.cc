#include "stormguard/core/duration_format.h"

#include <cstdio>

namespace stormguard {

std::string FormatDuration(Duration d) {
  if (d == kInfiniteDuration) return "inf";
  const std::int64_t n = d.count();
  if (n == 0) return "0s";  // a unit even here, so every output reads back as a CLI duration
  // The magnitude, unsigned: -Duration::min() does not fit a Duration.
  const std::uint64_t magnitude = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  // The first unit it reaches (largest first); stops at "ns": magnitude >= 1.
  const DurationUnit* unit = &kDurationUnits[0];
  while (magnitude < static_cast<std::uint64_t>(unit->ns)) ++unit;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(magnitude) / static_cast<double>(unit->ns));
  std::string_view digits(buf);
  digits.remove_suffix(digits.size() - 1 - digits.find_last_not_of('0'));
  if (digits.back() == '.') digits.remove_suffix(1);
  std::string out(n < 0 ? "-" : "");
  out += digits;
  out += unit->name;
  return out;
}

}  // namespace stormguard
