// Needs the CLI's sources in the test binary: built when tests/CMakeLists.txt
// links stormguard_tools and defines STORMGUARD_CLI_PATH (see the tools/ note).
#ifdef STORMGUARD_CLI_PATH

#include "duration_flag.h"

#include <gtest/gtest.h>

#include "stormguard/config/duration_text.h"

namespace stormguard::cli {
namespace {
using namespace std::chrono_literals;

// The reason ParseDuration gives for `text`, or "" when it takes it.
std::string Why(std::string_view text) {
  const Result<Duration> d = ParseDuration(text);
  return d.ok() ? "" : d.status().message();
}

TEST(DurationFlagTest, ParsesEveryUnit) {
  EXPECT_EQ(*ParseDuration("5ns"), 5ns);
  EXPECT_EQ(*ParseDuration("5us"), 5us);
  EXPECT_EQ(*ParseDuration("100ms"), 100ms);
  EXPECT_EQ(*ParseDuration("30s"), 30s);
  EXPECT_EQ(*ParseDuration("2m"), 2min);
  EXPECT_EQ(*ParseDuration("1h"), 1h);
}

TEST(DurationFlagTest, ParsesDecimalFractionsExactly) {
  EXPECT_EQ(*ParseDuration("1.5s"), 1500ms);
  EXPECT_EQ(*ParseDuration("0.25h"), 15min);
  EXPECT_EQ(*ParseDuration("2.5us"), 2500ns);
  EXPECT_EQ(*ParseDuration("0.3ms"), 300us);
  EXPECT_EQ(*ParseDuration("0.1s"), 100ms);
  EXPECT_EQ(*ParseDuration("007ms"), 7ms);
  EXPECT_EQ(*ParseDuration("999.999999999h"), 1000h - 3600ns);  // exact, no double in between
}

// A documented shorthand: only "0" itself, not "0.0" or "00".
TEST(DurationFlagTest, BareZeroNeedsNoUnit) {
  EXPECT_EQ(*ParseDuration("0"), Duration::zero());
  EXPECT_EQ(*ParseDuration("0ms"), Duration::zero());
  EXPECT_FALSE(ParseDuration("0.0").ok());
  EXPECT_FALSE(ParseDuration("00").ok());
}

TEST(DurationFlagTest, RejectsEverythingElse) {
  for (const char* bad : {"",     "abc",    "ms",    "100", "1.5", "-5ms", "+5ms", "5 ms", " 5ms", "5msx", "5MS",
                          "5min", "1.2.3s", "1e3ms", "inf", "nan", "infs", "5sec", ".",    ".5s",  "5.s"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << "'" << bad << "'";
  }
}

// The double the old parser went through rounded these; a flag is exact now.
TEST(DurationFlagTest, RejectsWhatIsFinerThanANanosecond) {
  EXPECT_EQ(Why("0.0000001ns"), "must be a whole number of nanoseconds, got \"0.0000001ns\"");
  EXPECT_EQ(Why("1.5ns"), "must be a whole number of nanoseconds, got \"1.5ns\"");
  EXPECT_FALSE(ParseDuration("1.0000000001s").ok());  // ten decimals
}

TEST(DurationFlagTest, RejectsDurationsPastTheRange) {
  EXPECT_EQ(Why("99999999999h"), "must be at most 1000h, got \"99999999999h\"");
  EXPECT_EQ(Why("9223372036854775808ns"), "must be at most 1000h, got \"9223372036854775808ns\"");
  EXPECT_EQ(Why(std::string(33, '1') + "s"), "must be at most 32 characters");
  EXPECT_EQ(*ParseDuration("1000h"), kMaxFlagDuration);  // just fits
  EXPECT_EQ(Why("1000.000001h"), "must be at most 1000h, got \"1000.000001h\"");
}

// One parser: a flag takes what a configuration file takes, up to its own
// bound and without "inf".
TEST(DurationFlagTest, TakesWhatTheConfigurationTakes) {
  for (const char* text : {"1ns", "250ms", "1.5s", "2m", "0.25h", "168h", "0s", "1.000000001s"}) {
    EXPECT_EQ(*ParseDuration(text), *config::ParseDurationText(text)) << text;
  }
  for (const char* text : {"-1s", "1.5", "1e3ms", "1.5ns", "1.0000000001s", "inf"}) {
    EXPECT_FALSE(ParseDuration(text).ok()) << text;
  }
  EXPECT_EQ(Why("-1s"), config::ParseDurationText("-1s").status().message());
  EXPECT_EQ(Why("1.5ns"), config::ParseDurationText("1.5ns").status().message());
  EXPECT_EQ(*ParseDuration("169h"), 169h);  // above a file's 168h, within a flag's 1000h
}

// The CLI prints durations with the library's FormatDuration; all it prints
// must read back as a flag.
TEST(DurationFlagTest, FormattedDurationsParseBack) {
  for (Duration d : {Duration(100ms), Duration(1500ms), Duration(90s), Duration(7ns), Duration(2h), Duration(250us),
                     Duration::zero(), Duration(kMaxFlagDuration)}) {
    EXPECT_EQ(*ParseDuration(FormatDuration(d)), d) << FormatDuration(d);
  }
}

TEST(DurationFlagTest, FormatNumberDropsTrailingZeros) {
  EXPECT_EQ(FormatNumber(2), "2");
  EXPECT_EQ(FormatNumber(1.5), "1.5");
  EXPECT_EQ(FormatNumber(37.4219), "37.422");
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(-0.0001), "0");
  EXPECT_EQ(FormatNumber(1500), "1500");
}

TEST(DurationFlagTest, OptionStoresTheParsedDuration) {
  CLI::App app;
  Duration base = 100ms;
  AddDurationOption(app, "--base", base, "first wait");
  app.parse("--base 2m");
  EXPECT_EQ(base, 2min);
}

TEST(DurationFlagTest, OptionKeepsItsDefaultWhenAbsentAndShowsIt) {
  CLI::App app;
  Duration cap = 30s;
  CLI::Option* opt = AddDurationOption(app, "--cap", cap, "no wait is longer");
  app.parse("");
  EXPECT_EQ(cap, 30s);
  EXPECT_EQ(opt->get_default_str(), "30s");
}

TEST(DurationFlagTest, AZeroDefaultShowsAUnit) {
  CLI::App app;
  Duration jitter = Duration::zero();
  EXPECT_EQ(AddDurationOption(app, "--jitter", jitter, "extra wait")->get_default_str(), "0s");
}

TEST(DurationFlagTest, BadValueErrorNamesTheFlagAndTheReason) {
  CLI::App app;
  Duration base = 100ms;
  AddDurationOption(app, "--base", base, "first wait");
  try {
    app.parse("--base abc");
    FAIL() << "parse accepted 'abc'";
  } catch (const CLI::ValidationError& e) {
    EXPECT_STREQ(e.what(),
                 "--base: must be a duration such as \"250ms\", \"1.5s\" (units ns, us, ms, s, m, h), got \"abc\"");
  }
  try {
    app.parse("--base=-5ms");
    FAIL() << "parse accepted '-5ms'";
  } catch (const CLI::ParseError& e) {
    EXPECT_STREQ(e.what(), "--base: must not be negative, got \"-5ms\"");
  }
  EXPECT_EQ(base, 100ms);
}

TEST(DurationFlagTest, OptionRefusesMoreThanAThousandHours) {
  CLI::App app;
  Duration base = 100ms;
  AddDurationOption(app, "--base", base, "first wait");
  EXPECT_NO_THROW(app.parse("--base 1000h"));
  EXPECT_EQ(base, 1000h);
  try {
    app.parse("--base 9223372036s");
    FAIL() << "parse accepted 9223372036s";
  } catch (const CLI::ParseError& e) {
    EXPECT_STREQ(e.what(), "--base: must be at most 1000h, got \"9223372036s\"");
  }
}

}  // namespace
}  // namespace stormguard::cli

#endif  // STORMGUARD_CLI_PATH
