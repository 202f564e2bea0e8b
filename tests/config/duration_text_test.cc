#include "stormguard/config/duration_text.h"

#include <gtest/gtest.h>

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;

TEST(DurationTextTest, ReadsEveryUnitAndDecimals) {
  EXPECT_EQ(*ParseDurationText("250ms"), 250ms);
  EXPECT_EQ(*ParseDurationText("1.5s"), 1500ms);
  EXPECT_EQ(*ParseDurationText("2m"), 120s);
  EXPECT_EQ(*ParseDurationText("1h"), 1h);
  EXPECT_EQ(*ParseDurationText("100us"), 100us);
  EXPECT_EQ(*ParseDurationText("10ns"), 10ns);
  EXPECT_EQ(*ParseDurationText("0.000000001s"), 1ns);
  EXPECT_EQ(*ParseDurationText("0s"), Duration::zero());
  EXPECT_EQ(*ParseDurationText("inf"), kInfiniteDuration);
  EXPECT_EQ(*ParseDurationText("168h"), kMaxConfigDuration);
}

TEST(DurationTextTest, RefusesWhatIsNotADurationWithTheReason) {
  for (const char* text : {"250", "-", "-s", "+1s", "nan", "NaN", "1e3ms", "1.s", ".5s", "1.5", "s", "", "1 s", "1sec",
                           "infs", "1.2.3s", "0x10s"}) {
    const Result<Duration> d = ParseDurationText(text);
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_NE(d.status().message().find("must be a duration such as"), std::string::npos) << text;
  }
}

TEST(DurationTextTest, RefusesANegativeDurationAsSuch) {
  EXPECT_EQ(ParseDurationText("-1s").status().message(), "must not be negative, got \"-1s\"");
  EXPECT_EQ(ParseDurationText("-0.5ms").status().message(), "must not be negative, got \"-0.5ms\"");
}

// The CLI's flags read with their own bound and without "inf".
TEST(DurationTextTest, TakesTheCallersLimits) {
  const DurationTextLimits flag{.max = 1000h, .infinite = false};
  EXPECT_EQ(*ParseDurationText("1000h", flag), 1000h);
  EXPECT_EQ(ParseDurationText("1000.001h", flag).status().message(), "must be at most 1000h, got \"1000.001h\"");
  EXPECT_EQ(ParseDurationText("inf", flag).status().message(),
            "must be a duration such as \"250ms\", \"1.5s\" (units ns, us, ms, s, m, h), got \"inf\"");
  EXPECT_EQ(ParseDurationText("169h").status().message(), "must be at most 168h, got \"169h\"");
}

TEST(DurationTextTest, RefusesOverflowFinerThanNanosecondsAndAbsurdLength) {
  EXPECT_EQ(ParseDurationText("169h").status().message(), "must be at most 168h, got \"169h\"");
  EXPECT_EQ(ParseDurationText("99999999999999h").status().message(), "must be at most 168h, got \"99999999999999h\"");
  // More digits than an int64 holds: still "too long", never wrapped around.
  EXPECT_EQ(ParseDurationText("99999999999999999999ns").status().message(),
            "must be at most 168h, got \"99999999999999999999ns\"");
  EXPECT_EQ(ParseDurationText("18446744073709551617ns").status().message(),
            "must be at most 168h, got \"18446744073709551617ns\"");
  EXPECT_EQ(ParseDurationText("1.5ns").status().message(), "must be a whole number of nanoseconds, got \"1.5ns\"");
  EXPECT_EQ(ParseDurationText(std::string(33, '1') + "s").status().message(), "must be at most 32 characters");
  EXPECT_FALSE(ParseDurationText("1.0000000001s").ok());  // ten decimals
}

TEST(DurationTextTest, FormatsExactlySoEveryValueReadsBack) {
  EXPECT_EQ(FormatDurationText(1500ms), "1.5s");
  EXPECT_EQ(FormatDurationText(90s), "1.5m");
  EXPECT_EQ(FormatDurationText(250ms), "250ms");
  EXPECT_EQ(FormatDurationText(Duration::zero()), "0s");
  EXPECT_EQ(FormatDurationText(kInfiniteDuration), "inf");
  EXPECT_EQ(FormatDurationText(1234567ns), "1234.567us");
  EXPECT_EQ(FormatDurationText(1500001ns), "1500.001us");
  EXPECT_EQ(FormatDurationText(999ns), "999ns");
  for (Duration d : std::initializer_list<Duration>{1ns, 999ns, 1001ns, 1234567ns, 1500001ns, 61s, 3601s, 59999ms,
                                                    kMaxConfigDuration, Duration(123456789012345)}) {
    EXPECT_EQ(*ParseDurationText(FormatDurationText(d)), d) << FormatDurationText(d);
  }
}

TEST(DurationTextTest, ReadsProtoDurationsAsGrpcDoes) {
  EXPECT_EQ(*ParseProtoDuration("0.1s"), 100ms);
  EXPECT_EQ(*ParseProtoDuration("1.000000001s"), 1s + 1ns);
  EXPECT_EQ(*ParseProtoDuration("-2s"), -2s);
  EXPECT_EQ(*ParseProtoDuration("604800s"), kMaxConfigDuration);
  EXPECT_EQ(ParseProtoDuration("604800.000000001s").status().message(), "must be at most 604800s (168h)");
  EXPECT_EQ(ParseProtoDuration("315576000000s").status().message(), "must be at most 604800s (168h)");
  EXPECT_EQ(*ParseProtoDuration("-315576000000s"), -kMaxConfigDuration);  // the caller refuses a negative one
  EXPECT_EQ(ParseProtoDuration("0.1").status().message(), "Not a duration (no s suffix)");
  EXPECT_EQ(ParseProtoDuration("100ms").status().message(), "Not a duration (not a number of seconds)");
  EXPECT_EQ(ParseProtoDuration("315576000001s").status().message(), "Not a duration (seconds out of range)");
  EXPECT_FALSE(ParseProtoDuration("1.0000000001s").ok());
  EXPECT_FALSE(ParseProtoDuration("nans").ok());
}

}  // namespace
}  // namespace stormguard::config
