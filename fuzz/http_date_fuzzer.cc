// HTTP-dates (IMF-fixdate, RFC 850, asctime), as Retry-After may carry them.
//
// Input: "<unix_now_ms>\n<date>" (see fuzz_input.h); `now` only decides the
// century of an RFC 850 two-digit year.
#include <cstddef>
#include <cstdint>
#include <limits>

#include "civil_time.h"
#include "fuzz_input.h"
#include "stormguard/wire/http_date.h"

namespace fz = stormguard::fuzz;
using fz::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [line, text] = fz::SplitFirstLine(fz::AsText(data, size));
  const std::int64_t now_ms = fz::NumberAt(line, 0, fz::kDefaultUnixMs);
  const auto unix_s = stormguard::ParseHttpDate(text, now_ms);
  if (!unix_s) return 0;

  // Only RFC 850 dates have a '-'. Their two-digit year is the one within
  // (now - 50, now + 50] years (RFC 9110); the other forms spell out four
  // digits and never depend on `now`. A leap second can roll a year over.
  const std::int64_t year = fz::CivilFromDays(fz::FloorDiv(*unix_s, 86400)).year;
  if (text.find('-') != std::string_view::npos) {
    const std::int64_t now_year = fz::YearOfUnixMs(now_ms);
    Require(year > now_year - 50 && year <= now_year + 51, "RFC 850: the year nearest now");
  } else {
    Require(year >= 0 && year <= 10000, "a four-digit year");
    Require(stormguard::ParseHttpDate(text, 0) == unix_s, "a four-digit year ignores now");
  }

  // Printed back as IMF-fixdate, it reads as the same instant at any `now`.
  if (year > 9999 || year < 0) return 0;
  const std::string imf = fz::FormatImfFixdate(*unix_s);
  for (const std::int64_t now :
       {now_ms, std::int64_t{0}, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    Require(stormguard::ParseHttpDate(imf, now) == unix_s, "IMF-fixdate round-trips");
  }
  return 0;
}
