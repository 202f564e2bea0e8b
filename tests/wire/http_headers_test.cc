#include "stormguard/wire/http_headers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::int64_t kNowMs = 1'750'000'000'000;

// Strings every integer decoder must treat as absent.
std::vector<std::string> IntegerGarbage() {
  return {"",
          " ",
          "-1",
          "+1",
          "8 42",
          "0x10",
          "1e3",
          "842ms",
          "4.2",
          "1,2",
          "abc",
          "\xEF\xBC\x98\xEF\xBC\x94\xEF\xBC\x92" /* fullwidth 842 */,
          std::string("84\0", 3),
          std::string(19, '9'),
          std::string(100, '1')};
}

TEST(HttpHeadersTest, RequestTimeoutDecodesNonNegativeMilliseconds) {
  EXPECT_EQ(DecodeRequestTimeoutMs("842"), Duration(842ms));
  EXPECT_EQ(DecodeRequestTimeoutMs("0"), Duration::zero());
  EXPECT_EQ(DecodeRequestTimeoutMs("00042"), Duration(42ms));
  EXPECT_EQ(DecodeRequestTimeoutMs(" \t842 "), Duration(842ms));  // optional whitespace
}

TEST(HttpHeadersTest, RequestTimeoutGarbageIsAbsent) {
  for (const std::string& g : IntegerGarbage()) EXPECT_EQ(DecodeRequestTimeoutMs(g), std::nullopt) << g;
}

TEST(HttpHeadersTest, RequestTimeoutClampsHugeValuesToTheWireMaximum) {
  EXPECT_EQ(DecodeRequestTimeoutMs(std::string(18, '9')), kMaxWireDuration);
  EXPECT_EQ(DecodeRequestTimeoutMs("315360000000"), kMaxWireDuration);  // exactly ten years
  EXPECT_EQ(DecodeRequestTimeoutMs("315359999999"), kMaxWireDuration - 1ms);
}

TEST(HttpHeadersTest, RequestTimeoutEncoderRoundsDownSoTheBudgetOnlyShrinks) {
  EXPECT_EQ(EncodeRequestTimeoutMs(842700us).view(), "842");
  EXPECT_EQ(EncodeRequestTimeoutMs(999us).view(), "0");
  EXPECT_EQ(EncodeRequestTimeoutMs(-3s).view(), "0");
  EXPECT_EQ(DecodeRequestTimeoutMs(EncodeRequestTimeoutMs(5s)), Duration(5s));
}

TEST(HttpHeadersTest, RequestDeadlineIsTimeLeftUntilAnAbsoluteUnixMillisecond) {
  EXPECT_EQ(DecodeRequestDeadline("1750000000842", kNowMs), Duration(842ms));
  EXPECT_EQ(DecodeRequestDeadline("1750000000000", kNowMs), Duration::zero());
  EXPECT_EQ(DecodeRequestDeadline("1749999999000", kNowMs), Duration::zero());  // passed
  EXPECT_EQ(DecodeRequestDeadline("1750000000842", -INT64_MAX), kMaxWireDuration);
  EXPECT_EQ(EncodeRequestDeadline(842ms, kNowMs).view(), "1750000000842");
  EXPECT_EQ(EncodeRequestDeadline(kInfiniteDuration, INT64_MAX).view(), "9223372036854775807");
  for (const std::string& g : IntegerGarbage()) EXPECT_EQ(DecodeRequestDeadline(g, kNowMs), std::nullopt) << g;
}

TEST(HttpHeadersTest, RetryAttemptCountsFromOneAndClampsToIntMax) {
  EXPECT_EQ(DecodeRetryAttempt("1"), 1);
  EXPECT_EQ(DecodeRetryAttempt(" 2 "), 2);
  EXPECT_EQ(DecodeRetryAttempt("0"), std::nullopt);
  EXPECT_EQ(DecodeRetryAttempt("99999999999"), INT_MAX);
  EXPECT_EQ(EncodeRetryAttempt(3).view(), "3");
  for (const std::string& g : IntegerGarbage()) EXPECT_EQ(DecodeRetryAttempt(g), std::nullopt) << g;
}

TEST(HttpHeadersTest, GrpcPreviousAttemptsIsStrictAndCountsFromZero) {
  EXPECT_EQ(DecodeGrpcPreviousAttempts("0"), 0);
  EXPECT_EQ(DecodeGrpcPreviousAttempts("4"), 4);
  EXPECT_EQ(DecodeGrpcPreviousAttempts(" 4"), std::nullopt);
  EXPECT_EQ(DecodeGrpcPreviousAttempts("99999999999"), INT_MAX);
  EXPECT_EQ(EncodeGrpcPreviousAttempts(2).view(), "2");
}

TEST(HttpHeadersTest, NoRetryAcceptsOneAndTrueInAnyCase) {
  EXPECT_EQ(DecodeNoRetry("1"), true);
  EXPECT_EQ(DecodeNoRetry("true"), true);
  EXPECT_EQ(DecodeNoRetry(" TRUE "), true);
  EXPECT_EQ(DecodeNoRetry("0"), false);
  EXPECT_EQ(DecodeNoRetry("False"), false);
  for (const char* g : {"", "yes", "2", "01", "truee", "t"}) EXPECT_EQ(DecodeNoRetry(g), std::nullopt) << g;
}

TEST(HttpHeadersTest, RetryAfterReadsSecondsAndHttpDatesRelativeToNow) {
  EXPECT_EQ(DecodeRetryAfter("120", kNowMs), Duration(120s));
  EXPECT_EQ(DecodeRetryAfter("0", kNowMs), Duration::zero());
  // kNowMs is Sun, 15 Jun 2025 15:06:40 GMT.
  EXPECT_EQ(DecodeRetryAfter("Sun, 15 Jun 2025 15:07:10 GMT", kNowMs), Duration(30s));
  EXPECT_EQ(DecodeRetryAfter("Sunday, 15-Jun-25 15:07:10 GMT", kNowMs), Duration(30s));
  EXPECT_EQ(DecodeRetryAfter("Sun Jun 15 15:07:10 2025", kNowMs), Duration(30s));
  EXPECT_EQ(DecodeRetryAfter("Sun, 15 Jun 2025 15:07:10 GMT", kNowMs + 500), Duration(29500ms));
  EXPECT_EQ(DecodeRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", kNowMs), Duration::zero());  // past
}

TEST(HttpHeadersTest, RetryAfterClampsHugeValuesAndRejectsGarbage) {
  EXPECT_EQ(DecodeRetryAfter(std::string(18, '9'), kNowMs), kMaxWireDuration);
  EXPECT_EQ(DecodeRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", kNowMs), kMaxWireDuration);
  for (const std::string& g : IntegerGarbage()) EXPECT_EQ(DecodeRetryAfter(g, kNowMs), std::nullopt) << g;
}

TEST(HttpHeadersTest, RetryAfterDatesAreExactAtExtremeClocks) {
  // An RFC 850 year follows the clock, so at INT64_MAX ms (Sun, 17 Aug
  // 292278994 07:12:55.807) the date itself lies just past int64 ms.
  EXPECT_EQ(DecodeRetryAfter("Sunday, 17-Aug-94 07:13:25 GMT", INT64_MAX), Duration(29193ms));
  EXPECT_EQ(DecodeRetryAfter("Sunday, 17-Aug-94 07:12:55 GMT", INT64_MAX), Duration::zero());
  // INT64_MIN ms is Sun, 16 May -292275055 16:47:04.192.
  EXPECT_EQ(DecodeRetryAfter("Sunday, 16-May-45 16:47:34 GMT", INT64_MIN), Duration(29808ms));
  const std::string year0 = "Sat, 01 Jan 0000 00:00:00 GMT";
  const std::string year9999 = "Fri, 31 Dec 9999 23:59:59 GMT";
  for (const std::string& date : {year0, year9999}) {
    EXPECT_EQ(DecodeRetryAfter(date, INT64_MIN), kMaxWireDuration) << date;
    EXPECT_EQ(DecodeRetryAfter(date, INT64_MAX), Duration::zero()) << date;
  }
  EXPECT_EQ(DecodeRetryAfter(year0, -62'167'219'200'000 - 1'500), Duration(1500ms));
  EXPECT_EQ(DecodeRetryAfter(year9999, 253'402'300'799'000 - 1'500), Duration(1500ms));
  EXPECT_EQ(DecodeRetryAfter(year9999, 253'402'300'799'000 + 1), Duration::zero());
  EXPECT_EQ(DecodeRetryAfter("999999999999999999", INT64_MIN), kMaxWireDuration);
  EXPECT_EQ(DecodeRetryAfter("999999999999999999", INT64_MAX), kMaxWireDuration);
}

TEST(HttpHeadersTest, RetryAfterEncoderRoundsUpToWholeSeconds) {
  EXPECT_EQ(EncodeRetryAfter(1500ms).view(), "2");
  EXPECT_EQ(EncodeRetryAfter(2s).view(), "2");
  EXPECT_EQ(EncodeRetryAfter(0s).view(), "0");
  EXPECT_EQ(EncodeRetryAfter(-1s).view(), "0");
}

TEST(HttpHeadersTest, GrpcPushbackNegativeMeansStopAndGarbageIsAbsent) {
  EXPECT_EQ(DecodeGrpcPushback("250")->delay, Duration(250ms));
  EXPECT_FALSE(DecodeGrpcPushback("250")->stop);
  EXPECT_EQ(DecodeGrpcPushback("0")->delay, Duration::zero());
  EXPECT_TRUE(DecodeGrpcPushback("-1")->stop);
  EXPECT_TRUE(DecodeGrpcPushback("-2147483648")->stop);
  EXPECT_EQ(DecodeGrpcPushback(std::string(18, '9'))->delay, kMaxWireDuration);
  for (const char* g : {"", "-", "+5", " 5", "5 ", "--1", "-x", "abc", "1.5"}) {
    EXPECT_EQ(DecodeGrpcPushback(g), std::nullopt) << g;
  }
}

TEST(HttpHeadersTest, GrpcPushbackEncoderRoundsUpAndFitsASigned32BitValue) {
  EXPECT_EQ(EncodeGrpcPushback(1200us).view(), "2");
  EXPECT_EQ(EncodeGrpcPushback(250ms).view(), "250");
  EXPECT_EQ(EncodeGrpcPushback(-1s).view(), "0");
  EXPECT_EQ(EncodeGrpcPushback(kInfiniteDuration).view(), "2147483647");
}

TEST(HttpHeadersTest, IdempotencyKeyMustBeShortPrintableAscii) {
  EXPECT_EQ(DecodeIdempotencyKey(" 8e03978e-40d5 "), "8e03978e-40d5");
  EXPECT_EQ(DecodeIdempotencyKey("\"quoted key\""), "\"quoted key\"");
  EXPECT_EQ(DecodeIdempotencyKey(std::string(256, 'k')), std::string(256, 'k'));
  EXPECT_EQ(DecodeIdempotencyKey(std::string(257, 'k')), std::nullopt);
  EXPECT_EQ(DecodeIdempotencyKey("abc", 2), std::nullopt);
  for (const std::string& g :
       {std::string(""), std::string("  "), std::string("a\r\nX-Evil: 1"), std::string("a\0b", 3),
        std::string("tab\tinside"), std::string("\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87"), std::string("del\x7F")}) {
    EXPECT_EQ(DecodeIdempotencyKey(g), std::nullopt) << g;
  }
}

// A key that is valid to send must arrive unchanged: surrounding spaces are
// stripped in transit, so such a key is not valid to send.
TEST(HttpHeadersTest, AKeyWithSurroundingSpacesIsNotValidToSend) {
  EXPECT_FALSE(IsValidIdempotencyKey("i "));
  EXPECT_FALSE(IsValidIdempotencyKey(" i"));
  EXPECT_FALSE(IsValidIdempotencyKey(" "));
  EXPECT_TRUE(IsValidIdempotencyKey("a b"));
  EXPECT_EQ(DecodeIdempotencyKey("a b"), "a b");
}

TEST(HttpHeadersTest, DefaultNamesMatchTheDesignTableAndValidate) {
  EXPECT_EQ(kDefaultWireNames.request_timeout_ms, "x-request-timeout-ms");
  EXPECT_EQ(kDefaultWireNames.retry_after, "Retry-After");
  EXPECT_EQ(kDefaultWireNames.grpc_retry_pushback, "grpc-retry-pushback-ms");
  EXPECT_TRUE(kDefaultWireNames.Validate().empty());
  EXPECT_TRUE(WireNames{.request_deadline = ""}.Validate().empty());  // empty disables
}

TEST(HttpHeadersTest, ValidateNamesEveryBadName) {
  const WireNames names{.retry_attempt = "x retry", .no_retry = "x-no-retry:", .grpc_timeout = "Grpc-Timeout"};
  EXPECT_THAT(names.Validate(), ElementsAre(HasSubstr("retry_attempt: must be an HTTP token"),
                                            HasSubstr("no_retry: must be an HTTP token"),
                                            "grpc_timeout: gRPC metadata keys must be lower-case"));
}

TEST(HttpHeadersTest, DecodersAreNoexcept) {
  static_assert(noexcept(DecodeRequestTimeoutMs({})));
  static_assert(noexcept(DecodeRequestDeadline({}, 0)));
  static_assert(noexcept(DecodeRetryAfter({}, 0)));
  static_assert(noexcept(DecodeGrpcPushback({})));
  static_assert(noexcept(DecodeIdempotencyKey({})));
}

}  // namespace
}  // namespace stormguard
