#include "stormguard/config/duration_text.h"

#include <cstdint>
#include <numeric>

#include "stormguard/core/duration_format.h"

namespace stormguard::config {
namespace {

constexpr int kMaxDecimals = 9;

Status Bad(std::string reason) { return Status::InvalidArgument(std::move(reason)); }

struct Decimal {
  std::int64_t whole = 0;
  bool overflow = false;      // the whole part is above INT64_MAX: longer than any Duration
  std::int64_t fraction = 0;  // the digits after the point, as an integer
  int decimals = 0;           // how many there were
  std::string_view rest;      // what follows the number
};

// Digits, optionally "." and 1-9 digits; false for anything else.
bool ReadDecimal(std::string_view text, Decimal& d) {
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const int digit = text[i] - '0';
    d.overflow = d.overflow || d.whole > (INT64_MAX - digit) / 10;
    if (!d.overflow) d.whole = d.whole * 10 + digit;
  }
  if (i == 0) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (++d.decimals > kMaxDecimals) return false;
      d.fraction = d.fraction * 10 + (text[i] - '0');
    }
    if (d.decimals == 0) return false;
  }
  d.rest = text.substr(i);
  return true;
}

std::int64_t Pow10(int n) {
  std::int64_t p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

// d * unit in nanoseconds; false when that is finer than 1ns or above `max`.
bool ToNanos(const Decimal& d, std::int64_t unit, std::int64_t max, std::int64_t& out) {
  if (d.overflow || d.whole > max / unit) return false;
  const std::int64_t scale = Pow10(d.decimals);
  const std::int64_t g = std::gcd(unit, scale);
  if (d.fraction % (scale / g) != 0) return false;
  out = d.whole * unit + d.fraction / (scale / g) * (unit / g);
  return out <= max;
}

}  // namespace

Result<Duration> ParseDurationText(std::string_view text, DurationTextLimits limits) {
  if (text.size() > kMaxDurationTextLength) return Bad("must be at most 32 characters");
  if (limits.infinite && text == "inf") return kInfiniteDuration;
  const std::string got = ", got \"" + std::string(text) + "\"";
  const bool negative = text.starts_with('-');
  Decimal d;
  if (ReadDecimal(negative ? text.substr(1) : text, d)) {
    for (const DurationUnit& u : kDurationUnits) {
      if (d.rest != u.name) continue;
      if (negative) return Bad("must not be negative" + got);
      const std::int64_t max = limits.max.count();
      std::int64_t ns = 0;
      if (ToNanos(d, u.ns, max, ns)) return Duration(ns);
      const bool too_long = d.overflow || d.whole > max / u.ns || ns > max;
      return Bad((too_long ? "must be at most " + FormatDurationText(limits.max)
                           : std::string("must be a whole number of nanoseconds")) +
                 got);
    }
  }
  return Bad(std::string("must be a duration such as \"250ms\", \"1.5s\"") + (limits.infinite ? " or \"inf\"" : "") +
             " (units ns, us, ms, s, m, h)" + got);
}

std::string FormatDurationText(Duration d) {
  if (d == kInfiniteDuration) return "inf";
  const std::int64_t n = d.count();
  if (n == 0) return "0s";
  std::string sign = n < 0 ? "-" : "";
  if (n == INT64_MIN) return "-" + std::to_string(static_cast<std::uint64_t>(INT64_MAX) + 1) + "ns";
  const std::int64_t m = n < 0 ? -n : n;
  for (const DurationUnit& u : kDurationUnits) {
    if (m < u.ns) continue;
    const std::int64_t milli = u.ns / 1000;  // a thousandth of the unit
    if (u.ns >= 1000 && m % milli != 0) continue;
    std::string out = sign + std::to_string(m / u.ns);
    const std::int64_t rest = u.ns >= 1000 ? (m % u.ns) / milli : 0;
    if (rest != 0) {
      std::string digits = std::to_string(rest);
      digits.insert(0, 3 - digits.size(), '0');
      digits.erase(digits.find_last_not_of('0') + 1);
      out += "." + digits;
    }
    return out + std::string(u.name);
  }
  return sign + std::to_string(m) + "ns";
}

Result<Duration> ParseProtoDuration(std::string_view text) {
  constexpr std::int64_t kMaxProtoSeconds = 315'576'000'000;  // proto3's Duration range
  if (text.size() > kMaxDurationTextLength) return Bad("Not a duration (too long)");
  if (text.empty() || text.back() != 's') return Bad("Not a duration (no s suffix)");
  text.remove_suffix(1);
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  Decimal d;
  if (!ReadDecimal(text, d) || !d.rest.empty()) return Bad("Not a duration (not a number of seconds)");
  if (d.overflow || d.whole > kMaxProtoSeconds) return Bad("Not a duration (seconds out of range)");
  // Beyond our longest duration: refused, as in our own format (a negative
  // one is the caller's to refuse, with its own reason).
  std::int64_t ns = 0;
  if (!ToNanos(d, 1'000'000'000, kMaxConfigDuration.count(), ns)) {
    if (!negative) {
      return Bad("must be at most " + std::to_string(kMaxConfigDuration.count() / 1'000'000'000) + "s (" +
                 FormatDurationText(kMaxConfigDuration) + ")");
    }
    ns = kMaxConfigDuration.count();
  }
  return Duration(negative ? -ns : ns);
}

}  // namespace stormguard::config
