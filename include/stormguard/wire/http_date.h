// stormguard/wire/http_date.h: HTTP-date (RFC 9110 section 5.6.7) to Unix time.
//
// Retry-After may carry a date instead of seconds. All three forms a
// recipient must accept are parsed:
//
//   ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT", now_ms)   // IMF-fixdate
//   ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", now_ms)  // obsolete RFC 850
//   ParseHttpDate("Sun Nov  6 08:49:37 1994", now_ms)        // obsolete asctime
//   // all three: 784111777 (Unix seconds)
//
// Strict about shape (fixed widths, case-sensitive names, "GMT"), lenient
// only about surrounding whitespace and about a weekday that does not match
// the date (it is ignored). Impossible dates (Feb 30, 24:00:00) are rejected;
// a leap second (:60) is accepted. RFC 850's two-digit year is read as the
// RFC requires: a year more than 50 years after `unix_now_ms`'s year is
// taken from the previous century. Garbage gives nullopt.
//
// Thread safety: a pure function. Never throws, never allocates.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stormguard {

// Unix seconds of an HTTP-date; `unix_now_ms` only resolves RFC 850 years.
std::optional<std::int64_t> ParseHttpDate(std::string_view text, std::int64_t unix_now_ms) noexcept;

}  // namespace stormguard
