#include "stormguard/wire/http_date.h"

#include <array>

#include "parse.h"

namespace stormguard {
namespace {

using Names = std::array<std::string_view, 7>;
constexpr Names kShortDays = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
constexpr Names kLongDays = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct Civil {
  std::int64_t year = 0;
  int month = 0;  // 1..12
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
};

// Consumes a fixed-shape date left to right; every step fails cleanly.
class Cursor {
 public:
  explicit Cursor(std::string_view s) noexcept : rest_(s) {}

  bool Lit(std::string_view lit) noexcept {
    if (rest_.substr(0, lit.size()) != lit) return false;
    rest_.remove_prefix(lit.size());
    return true;
  }
  template <class T>
  bool Num(std::size_t width, T& out) noexcept {
    if (rest_.size() < width) return false;
    const auto v = wire_internal::ParseDigits(rest_.substr(0, width), width);
    if (!v) return false;
    out = static_cast<T>(*v);
    rest_.remove_prefix(width);
    return true;
  }
  template <std::size_t N>
  bool Name(const std::array<std::string_view, N>& names, int& index) noexcept {
    for (std::size_t i = 0; i < N; ++i) {
      if (Lit(names[i])) {
        index = static_cast<int>(i);
        return true;
      }
    }
    return false;
  }
  bool Month(Civil& c) noexcept {
    int index = 0;
    if (!Name(kMonths, index)) return false;
    c.month = index + 1;
    return true;
  }
  bool Time(Civil& c) noexcept {
    return Num(2, c.hour) && Lit(":") && Num(2, c.minute) && Lit(":") && Num(2, c.second);
  }
  bool End() const noexcept { return rest_.empty(); }

 private:
  std::string_view rest_;
};

constexpr bool IsLeap(std::int64_t y) noexcept { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

constexpr int DaysInMonth(std::int64_t y, int m) noexcept {
  constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

// Days since 1970-01-01 of a proleptic Gregorian date (400-year eras).
constexpr std::int64_t DaysFromCivil(std::int64_t y, int m, int d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t year_of_era = y - era * 400;
  const std::int64_t day_of_year = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// The calendar year containing Unix second `unix_s`.
std::int64_t YearOf(std::int64_t unix_s) noexcept {
  const std::int64_t days = unix_s / 86400 - (unix_s % 86400 < 0 ? 1 : 0);
  std::int64_t y = 1970 + days * 400 / 146097;
  while (DaysFromCivil(y + 1, 1, 1) <= days) ++y;
  while (DaysFromCivil(y, 1, 1) > days) --y;
  return y;
}

std::optional<Civil> ParseImfFixdate(std::string_view s) noexcept {
  Cursor c(s);
  Civil t;
  int weekday = 0;
  if (c.Name(kShortDays, weekday) && c.Lit(", ") && c.Num(2, t.day) && c.Lit(" ") && c.Month(t) && c.Lit(" ") &&
      c.Num(4, t.year) && c.Lit(" ") && c.Time(t) && c.Lit(" GMT") && c.End()) {
    return t;
  }
  return std::nullopt;
}

std::optional<Civil> ParseRfc850(std::string_view s, std::int64_t now_year) noexcept {
  Cursor c(s);
  Civil t;
  int weekday = 0;
  int yy = 0;
  if (!(c.Name(kLongDays, weekday) && c.Lit(", ") && c.Num(2, t.day) && c.Lit("-") && c.Month(t) && c.Lit("-") &&
        c.Num(2, yy) && c.Lit(" ") && c.Time(t) && c.Lit(" GMT") && c.End())) {
    return std::nullopt;
  }
  // RFC 9110 5.6.7: the latest year ending in `yy` that is at most 50 years
  // ahead of now, which may lie in the next century (at now = 2080, "20" is
  // 2120). Floor division, so years before 0 work the same way.
  const std::int64_t limit = now_year + 50;
  std::int64_t centuries = (limit - yy) / 100;
  if ((limit - yy) % 100 < 0) --centuries;
  t.year = centuries * 100 + yy;
  return t;
}

std::optional<Civil> ParseAsctime(std::string_view s) noexcept {
  Cursor c(s);
  Civil t;
  int weekday = 0;
  if (!(c.Name(kShortDays, weekday) && c.Lit(" ") && c.Month(t) && c.Lit(" "))) return std::nullopt;
  const bool day_ok = (c.Lit(" ") && c.Num(1, t.day)) || c.Num(2, t.day);
  if (day_ok && c.Lit(" ") && c.Time(t) && c.Lit(" ") && c.Num(4, t.year) && c.End()) return t;
  return std::nullopt;
}

std::optional<std::int64_t> ToUnixSeconds(const Civil& t) noexcept {
  if (t.day < 1 || t.day > DaysInMonth(t.year, t.month)) return std::nullopt;
  if (t.hour > 23 || t.minute > 59 || t.second > 60) return std::nullopt;
  // An RFC 850 year follows `now`, so an extreme clock makes an extreme date.
  return wire_internal::CheckedMulAdd(DaysFromCivil(t.year, t.month, t.day), 86400,
                                      t.hour * 3600 + t.minute * 60 + t.second);
}

}  // namespace

std::optional<std::int64_t> ParseHttpDate(std::string_view text, std::int64_t unix_now_ms) noexcept {
  const std::string_view s = wire_internal::TrimOws(text);
  std::optional<Civil> civil = ParseImfFixdate(s);
  if (!civil) civil = ParseAsctime(s);
  if (!civil) civil = ParseRfc850(s, YearOf(unix_now_ms / 1000));
  if (!civil) return std::nullopt;
  return ToUnixSeconds(*civil);
}

}  // namespace stormguard
