#include "stormguard/wire/http_date.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace stormguard {
namespace {

constexpr std::int64_t kRfcExample = 784111777;         // Sun, 06 Nov 1994 08:49:37 GMT
constexpr std::int64_t kNow2025Ms = 1'750'000'000'000;  // June 2025

TEST(HttpDateTest, ParsesTheThreeFormsOfTheRfcExampleToTheSameSecond) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT", kNow2025Ms), kRfcExample);
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", kNow2025Ms), kRfcExample);
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994", kNow2025Ms), kRfcExample);
}

TEST(HttpDateTest, ParsesTheEpochAndDatesBeforeIt) {
  EXPECT_EQ(ParseHttpDate("Thu, 01 Jan 1970 00:00:00 GMT", 0), 0);
  EXPECT_EQ(ParseHttpDate("Wed, 31 Dec 1969 23:59:59 GMT", 0), -1);
}

TEST(HttpDateTest, ParsesTheFirstAndLastFourDigitYears) {
  EXPECT_EQ(ParseHttpDate("Sat, 01 Jan 0000 00:00:00 GMT", INT64_MIN), -62'167'219'200);
  EXPECT_EQ(ParseHttpDate("Fri, 31 Dec 9999 23:59:59 GMT", INT64_MAX), 253'402'300'799);
}

TEST(HttpDateTest, Rfc850YearsFollowEvenAnExtremeClock) {
  // INT64_MAX ms falls in 292278994, INT64_MIN ms in -292275055.
  EXPECT_EQ(ParseHttpDate("Sunday, 17-Aug-94 07:13:25 GMT", INT64_MAX), 9'223'372'036'854'805);
  EXPECT_EQ(ParseHttpDate("Sunday, 16-May-45 16:47:34 GMT", INT64_MIN), -9'223'372'036'854'746);
}

TEST(HttpDateTest, AsctimeAcceptsTwoDigitDays) {
  EXPECT_EQ(ParseHttpDate("Thu Dec 25 00:00:00 2025", kNow2025Ms), 1766620800);
  EXPECT_EQ(ParseHttpDate("Thu Dec 25 00:00:00 2025", kNow2025Ms),
            ParseHttpDate("Thu, 25 Dec 2025 00:00:00 GMT", kNow2025Ms));
}

TEST(HttpDateTest, Rfc850YearsMoreThanFiftyYearsAheadBelongToThePreviousCentury) {
  // Now is 2025: "75" is 2075 (exactly 50 years ahead), "76" is 1976.
  EXPECT_EQ(ParseHttpDate("Monday, 01-Jan-75 00:00:00 GMT", kNow2025Ms),
            ParseHttpDate("Tue, 01 Jan 2075 00:00:00 GMT", kNow2025Ms));
  EXPECT_EQ(ParseHttpDate("Thursday, 01-Jan-76 00:00:00 GMT", kNow2025Ms),
            ParseHttpDate("Thu, 01 Jan 1976 00:00:00 GMT", kNow2025Ms));
  EXPECT_EQ(ParseHttpDate("Friday, 01-Jan-30 00:00:00 GMT", kNow2025Ms),
            ParseHttpDate("Tue, 01 Jan 2030 00:00:00 GMT", kNow2025Ms));
}

// The rule is "at most 50 years ahead", not "this century or the last":
// late in a century a two-digit year can belong to the next one.
TEST(HttpDateTest, Rfc850YearsCanBelongToTheNextCentury) {
  constexpr std::int64_t kNow2080Ms = 3'471'292'800'000;  // 2080-01-01
  EXPECT_EQ(ParseHttpDate("Wednesday, 01-Jan-20 00:00:00 GMT", kNow2080Ms),
            ParseHttpDate("Mon, 01 Jan 2120 00:00:00 GMT", kNow2080Ms));
  EXPECT_EQ(ParseHttpDate("Friday, 01-Jan-31 00:00:00 GMT", kNow2080Ms),
            ParseHttpDate("Tue, 01 Jan 2031 00:00:00 GMT", kNow2080Ms));
}

TEST(HttpDateTest, Rfc850YearsBeforeYearZeroFollowTheSameRule) {
  // Now is about 2.7 million years before the epoch: "70" is the latest
  // year ending in 70 that is at most 50 years ahead, not 62 years ahead.
  constexpr std::int64_t kFarPastMs = -84'467'440'737'551'616;
  const auto parsed = ParseHttpDate("Thursday, 01-Jan-70 00:00:00 GMT", kFarPastMs);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_LE(*parsed * 1000 - kFarPastMs, std::int64_t{51} * 366 * 86'400'000);
  EXPECT_GE(*parsed * 1000 - kFarPastMs, std::int64_t{-50} * 366 * 86'400'000);
}

TEST(HttpDateTest, ChecksTheCalendarButIgnoresAMismatchedWeekday) {
  EXPECT_TRUE(ParseHttpDate("Thu, 29 Feb 2024 12:00:00 GMT", 0).has_value());
  EXPECT_EQ(ParseHttpDate("Wed, 29 Feb 2023 12:00:00 GMT", 0), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Mon, 29 Feb 1900 12:00:00 GMT", 0), std::nullopt);  // not a leap year
  EXPECT_TRUE(ParseHttpDate("Tue, 29 Feb 2000 12:00:00 GMT", 0).has_value());  // 400-year rule
  EXPECT_EQ(ParseHttpDate("Thu, 31 Apr 2025 00:00:00 GMT", 0), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Thu, 00 Apr 2025 00:00:00 GMT", 0), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Thu, 01 Apr 2025 24:00:00 GMT", 0), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Thu, 01 Apr 2025 23:60:00 GMT", 0), std::nullopt);
  EXPECT_TRUE(ParseHttpDate("Wed, 31 Dec 2025 23:59:60 GMT", 0).has_value());  // leap second
  EXPECT_EQ(ParseHttpDate("Mon, 06 Nov 1994 08:49:37 GMT", 0), kRfcExample);   // wrong weekday
}

TEST(HttpDateTest, IgnoresSurroundingWhitespaceOnly) {
  EXPECT_EQ(ParseHttpDate("  Sun, 06 Nov 1994 08:49:37 GMT\t", 0), kRfcExample);
  EXPECT_EQ(ParseHttpDate("Sun,  06 Nov 1994 08:49:37 GMT", 0), std::nullopt);
}

TEST(HttpDateTest, RejectsEverythingElse) {
  const std::vector<std::string> garbage = {"",
                                            "GMT",
                                            "Sun, 06 Nov 1994 08:49:37 gmt",
                                            "Sun, 06 Nov 1994 08:49:37 UTC",
                                            "Sun, 06 Nov 1994 08:49:37",
                                            "Sun 06 Nov 1994 08:49:37 GMT",
                                            "Sun, 6 Nov 1994 08:49:37 GMT",
                                            "Sun, 06 nov 1994 08:49:37 GMT",
                                            "sun, 06 Nov 1994 08:49:37 GMT",
                                            "Foo, 06 Nov 1994 08:49:37 GMT",
                                            "Sun, 06 Nov 94 08:49:37 GMT",
                                            "Sun, 06 Nov 1994 8:49:37 GMT",
                                            "Sun, 06 Nov 1994 08:49:37 GMTX",
                                            "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT",
                                            "Sunday, 06-Nov-1994 08:49:37 GMT",
                                            "Sun Nov 6 08:49:37 1994",
                                            "Sun Nov  6 08:49:37 94",
                                            "1994-11-06T08:49:37Z",
                                            "784111777",
                                            std::string("Sun, 06 Nov 1994 08:49:37 GMT\0", 30),
                                            "Sun, \xEF\xBC\x90\xEF\xBC\x96 Nov 1994"};
  for (const std::string& g : garbage) EXPECT_EQ(ParseHttpDate(g, kNow2025Ms), std::nullopt) << g;
}

// Every day from 1970 to 2100 at a varying time of day, formatted by the C
// library (an independent implementation) and parsed back.
TEST(HttpDateTest, AgreesWithTheCLibraryOnEveryDayOf130Years) {
  for (std::int64_t day = 0; day < 130 * 366; ++day) {
    const std::time_t t = static_cast<std::time_t>(day * 86400 + (day * 7919) % 86400);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&t, &tm), nullptr);
    char buf[64];
    ASSERT_GT(std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm), 0u);
    ASSERT_EQ(ParseHttpDate(buf, 0), static_cast<std::int64_t>(t)) << buf;
  }
}

}  // namespace
}  // namespace stormguard
