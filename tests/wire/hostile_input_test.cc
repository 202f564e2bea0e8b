// Every decoder and Extract against hostile input: random bytes, huge and
// negative numbers, very long strings, NULs, non-ASCII. Nothing may throw,
// and nothing may grant more than the documented limits.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "stormguard/core/random.h"
#include "stormguard/wire/grpc_timeout.h"
#include "stormguard/wire/http_date.h"
#include "stormguard/wire/http_headers.h"
#include "stormguard/wire/propagation.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

constexpr std::int64_t kUnixMs = 1'750'000'000'000;
const TimePoint kNow = TimePoint(1h);

// Strings biased towards what parsers trip on: digits, units, signs,
// whitespace, NUL, bytes >= 0x80, date punctuation.
std::string HostileString(Random& rng) {
  static constexpr std::string_view kAlphabet = "0123456789HMSmun-+ \t.,:xeE";
  const std::size_t length = rng.Below(40);
  std::string s;
  for (std::size_t i = 0; i < length; ++i) {
    switch (rng.Below(8)) {
      case 0: s += static_cast<char>(rng.Below(256)); break;
      case 1: s += '\0'; break;
      default: s += kAlphabet[rng.Below(kAlphabet.size())]; break;
    }
  }
  return s;
}

// Absent, or a duration in [0, kMaxWireDuration].
bool WithinWireLimits(std::optional<Duration> d) { return !d || (*d >= Duration::zero() && *d <= kMaxWireDuration); }

// x-no-retry's grammar, written out independently of the decoder.
std::optional<bool> ExpectedNoRetry(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "1" || lower == "true") return true;
  if (lower == "0" || lower == "false") return false;
  return std::nullopt;
}

void ExpectDecodersStayInBounds(const std::string& s) {
  EXPECT_GE(DecodeGrpcTimeout(s).value_or(Duration::zero()), Duration::zero()) << s;
  EXPECT_TRUE(WithinWireLimits(DecodeRequestTimeoutMs(s))) << s;
  EXPECT_TRUE(WithinWireLimits(DecodeRequestDeadline(s, kUnixMs))) << s;
  EXPECT_TRUE(WithinWireLimits(DecodeRetryAfter(s, kUnixMs))) << s;
  EXPECT_GE(DecodeRetryAttempt(s).value_or(1), 1) << s;
  EXPECT_EQ(DecodeEnvoyAttemptCount(s), DecodeRetryAttempt(s)) << s;
  EXPECT_GE(DecodeGrpcPreviousAttempts(s).value_or(0), 0) << s;
  EXPECT_TRUE(WithinWireLimits(DecodeGrpcPushback(s).value_or(GrpcPushback{}).delay)) << s;
  EXPECT_TRUE(IsValidIdempotencyKey(DecodeIdempotencyKey(s).value_or("ok"))) << s;
  EXPECT_EQ(DecodeNoRetry(s), ExpectedNoRetry(s)) << s;
  // A date needs a month name; the alphabet spells none, and random bytes
  // spelling a whole date do not occur with this seed.
  EXPECT_EQ(ParseHttpDate(s, kUnixMs), std::nullopt) << s;
}

TEST(HostileInputTest, RandomBytesNeverEscapeTheDocumentedBounds) {
  Random rng(7);
  for (int i = 0; i < 50000; ++i) ASSERT_NO_FATAL_FAILURE(ExpectDecodersStayInBounds(HostileString(rng)));
}

TEST(HostileInputTest, HostileHeadersNeverExtendTheServersLimits) {
  Random rng(11);
  const ServerLimits limits{.default_budget = 2s, .max_budget = 5s, .max_idempotency_key_length = 16};
  const std::vector<std::string> names = {
      "x-request-timeout-ms", "x-request-deadline",   "x-envoy-expected-rq-timeout-ms",
      "grpc-timeout",         "x-retry-attempt",      "grpc-previous-rpc-attempts",
      "idempotency-key",      "x-envoy-attempt-count"};
  for (int i = 0; i < 20000; ++i) {
    std::map<std::string, std::string> h;
    for (const std::string& name : names) {
      if (rng.Below(2) == 0) h[name] = rng.Below(4) == 0 ? std::to_string(rng.NextU64()) : HostileString(rng);
    }
    const ExtractedContext in = Extract(h, kNow, kUnixMs, limits);
    ASSERT_LE(in.context.deadline.Remaining(kNow), 5s);
    ASSERT_LE(in.context.idempotency_key.size(), 16u);
    ASSERT_EQ(in.expired, in.context.deadline.Expired(kNow));
  }
}

TEST(HostileInputTest, MegabyteValuesAreRejectedNotParsed) {
  const std::string digits(1 << 20, '7');
  const std::string key(1 << 20, 'k');
  EXPECT_EQ(DecodeGrpcTimeout(digits + "S"), std::nullopt);
  EXPECT_EQ(DecodeRequestTimeoutMs(digits), std::nullopt);
  EXPECT_EQ(DecodeRetryAfter(digits, kUnixMs), std::nullopt);
  EXPECT_EQ(DecodeGrpcPushback("-" + digits), std::nullopt);
  EXPECT_EQ(DecodeIdempotencyKey(key), std::nullopt);
  EXPECT_EQ(DecodeEnvoyAttemptCount(digits), std::nullopt);
  const std::map<std::string, std::string> h = {
      {"x-request-timeout-ms", digits}, {"Idempotency-Key", key}, {"x-envoy-attempt-count", digits}};
  const ExtractedContext in = Extract(h, kNow, kUnixMs);
  EXPECT_EQ(in.source, BudgetSource::kServerDefault);
  EXPECT_TRUE(in.context.idempotency_key.empty());
  EXPECT_FALSE(in.context.incoming_is_retry);
}

TEST(HostileInputTest, ExtremeClockValuesDoNotOverflow) {
  constexpr std::int64_t kRfcExample = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
  struct Case {
    std::int64_t now_ms;
    Duration far_deadline;     // x-request-deadline: 999999999999999999
    Duration far_retry_after;  // Retry-After: the last second of year 9999
    std::int64_t rfc850_94;    // "06-Nov-94", read in now's century
  };
  const Case cases[] = {
      {INT64_MIN, kMaxWireDuration, kMaxWireDuration, -9'223'370'475'549'023},
      {-1, kMaxWireDuration, kMaxWireDuration, kRfcExample},
      {0, kMaxWireDuration, kMaxWireDuration, kRfcExample},
      {INT64_MAX, Duration::zero(), Duration::zero(), 9'223'372'043'858'977},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DecodeRequestDeadline("999999999999999999", c.now_ms), c.far_deadline) << c.now_ms;
    EXPECT_EQ(DecodeRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", c.now_ms), c.far_retry_after) << c.now_ms;
    EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", c.now_ms), c.rfc850_94) << c.now_ms;
  }
  EXPECT_EQ(EncodeRequestDeadline(kInfiniteDuration, INT64_MAX).view(), "9223372036854775807");
}

}  // namespace
}  // namespace stormguard
