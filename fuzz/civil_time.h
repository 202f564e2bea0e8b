// fuzz/civil_time.h: Unix seconds back to a calendar date, and IMF-fixdate
// text, so the date harnesses can check a parse by printing and re-reading.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

namespace stormguard::fuzz {

struct CivilDate {
  std::int64_t year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31
};

constexpr std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

// The proleptic Gregorian date `days` after 1970-01-01: shift to eras of
// 400 years starting on March 1st, where every month length is regular.
constexpr CivilDate CivilFromDays(std::int64_t days) {
  const std::int64_t z = days + 719468;  // days since 0000-03-01
  const std::int64_t era = FloorDiv(z, 146097);
  const std::int64_t doe = z - era * 146097;                                       // [0, 146096]
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const std::int64_t mp = (5 * doy + 2) / 153;                                     // March = 0
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

// The calendar year of a Unix time in ms, the way a server's clock reads it.
constexpr std::int64_t YearOfUnixMs(std::int64_t unix_ms) {
  return CivilFromDays(FloorDiv(unix_ms / 1000, 86400)).year;
}

// "Sun, 06 Nov 1994 08:49:37 GMT" for years 0 to 9999.
inline std::string FormatImfFixdate(std::int64_t unix_s) {
  constexpr std::array<const char*, 7> kDays = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
  constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::int64_t days = FloorDiv(unix_s, 86400);
  const std::int64_t secs = unix_s - days * 86400;
  const CivilDate d = CivilFromDays(days);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04lld %02lld:%02lld:%02lld GMT",
                kDays[static_cast<std::size_t>(days - FloorDiv(days, 7) * 7)], d.day,
                kMonths[static_cast<std::size_t>(d.month - 1)], static_cast<long long>(d.year),
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  return buf;
}

}  // namespace stormguard::fuzz
