// Needs the CLI's sources in the test binary: built when tests/CMakeLists.txt
// links stormguard_tools and defines STORMGUARD_CLI_PATH.
#ifdef STORMGUARD_CLI_PATH

#include "number_flag.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace stormguard::cli {
namespace {

// The error CLI11 raises for `args`, or "" when the parse succeeds.
std::string ParseError(CLI::App& app, const std::string& args) {
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(NumberFlagTest, FiniteRangeRefusesNanInfinitiesAndValuesOutside) {
  CLI::App app;
  double rate = 50;
  app.add_option("--rate", rate, "")->check(FiniteRange(1, 500));
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "infinity", "1e400", "0x10", "12abc", "-5"}) {
    EXPECT_EQ(ParseError(app, std::string("--rate ") + bad).rfind("--rate: '", 0), 0u) << bad;
    EXPECT_EQ(rate, 50) << bad;
  }
  EXPECT_EQ(ParseError(app, "--rate nan"), "--rate: 'nan' is not a finite number");
  EXPECT_EQ(ParseError(app, "--rate 0.5"), "--rate: '0.5' is not in [1, 500]");
  EXPECT_EQ(ParseError(app, "--rate 500.001"), "--rate: '500.001' is not in [1, 500]");
  EXPECT_EQ(ParseError(app, "--rate 2.5e2"), "");
  EXPECT_EQ(rate, 250);
}

TEST(NumberFlagTest, SeedTakesEverySixtyFourBitValueAndNothingElse) {
  CLI::App app;
  std::uint64_t seed = 42;
  AddSeedOption(app, seed, "");
  EXPECT_EQ(ParseError(app, "--seed 18446744073709551615"), "");
  EXPECT_EQ(seed, std::numeric_limits<std::uint64_t>::max());
  for (const char* bad : {"-1", "18446744073709551616", "1e3", "+1", "0x1", "nan"}) {
    EXPECT_EQ(ParseError(app, std::string("--seed ") + bad),
              std::string("--seed: '") + bad + "' is not an integer from 0 to 18446744073709551615")
        << bad;
  }
}

}  // namespace
}  // namespace stormguard::cli

#endif  // STORMGUARD_CLI_PATH
