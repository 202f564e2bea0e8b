// Needs the CLI's sources in the test binary: built when tests/CMakeLists.txt
// links stormguard_tools and defines STORMGUARD_CLI_PATH (see the tools/ note).
#ifdef STORMGUARD_CLI_PATH

#include "duration_flag.h"

#include <gtest/gtest.h>

namespace stormguard::cli {
namespace {
using namespace std::chrono_literals;

TEST(DurationFlagTest, ParsesEveryUnit) {
  EXPECT_EQ(ParseDuration("5ns"), 5ns);
  EXPECT_EQ(ParseDuration("5us"), 5us);
  EXPECT_EQ(ParseDuration("100ms"), 100ms);
  EXPECT_EQ(ParseDuration("30s"), 30s);
  EXPECT_EQ(ParseDuration("2m"), 2min);
  EXPECT_EQ(ParseDuration("1h"), 1h);
}

TEST(DurationFlagTest, ParsesDecimalFractionsExactly) {
  EXPECT_EQ(ParseDuration("1.5s"), 1500ms);
  EXPECT_EQ(ParseDuration("0.25h"), 15min);
  EXPECT_EQ(ParseDuration("2.5us"), 2500ns);
  EXPECT_EQ(ParseDuration("0.3ms"), 300us);
  EXPECT_EQ(ParseDuration("0.1s"), 100ms);
  EXPECT_EQ(ParseDuration("007ms"), 7ms);
}

TEST(DurationFlagTest, BareZeroNeedsNoUnit) {
  EXPECT_EQ(ParseDuration("0"), Duration::zero());
  EXPECT_EQ(ParseDuration("0.0"), Duration::zero());
  EXPECT_EQ(ParseDuration("0ms"), Duration::zero());
}

TEST(DurationFlagTest, RejectsEverythingElse) {
  for (const char* bad : {"", "abc", "ms", "100", "1.5", "-5ms", "+5ms", "5 ms", " 5ms", "5msx",
                          "5MS", "5min", "1.2.3s", "1e3ms", "inf", "nan", "infs", "5sec", "."}) {
    EXPECT_EQ(ParseDuration(bad), std::nullopt) << "'" << bad << "'";
  }
}

TEST(DurationFlagTest, RejectsDurationsPastTheRange) {
  EXPECT_EQ(ParseDuration("99999999999h"), std::nullopt);
  EXPECT_EQ(ParseDuration("9223372036854775808ns"), std::nullopt);
  EXPECT_EQ(ParseDuration("2562047h"), 2562047h);  // just fits
}

// The CLI prints durations with the library's FormatDuration; all it prints
// must read back as a flag.
TEST(DurationFlagTest, FormattedDurationsParseBack) {
  for (Duration d : {Duration(100ms), Duration(1500ms), Duration(90s), Duration(7ns),
                     Duration(2h), Duration(250us), Duration::zero()}) {
    EXPECT_EQ(ParseDuration(FormatDuration(d)), d) << FormatDuration(d);
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

TEST(DurationFlagTest, BadValueErrorNamesTheFlag) {
  CLI::App app;
  Duration base = 100ms;
  AddDurationOption(app, "--base", base, "first wait");
  try {
    app.parse("--base abc");
    FAIL() << "parse accepted 'abc'";
  } catch (const CLI::ValidationError& e) {
    EXPECT_STREQ(e.what(), "--base: 'abc' is not a duration (use ns, us, ms, s, m, h)");
  }
  try {
    app.parse("--base=-5ms");
    FAIL() << "parse accepted '-5ms'";
  } catch (const CLI::ParseError& e) {
    EXPECT_STREQ(e.what(), "--base: '-5ms' must not be negative");
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
    EXPECT_STREQ(e.what(), "--base: '9223372036s' is more than 1000h");
  }
}

}  // namespace
}  // namespace stormguard::cli

#endif  // STORMGUARD_CLI_PATH
