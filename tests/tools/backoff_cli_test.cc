// End-to-end tests of `stormguard backoff`: run the built binary, whose path
// tests/CMakeLists.txt passes as STORMGUARD_CLI_PATH, and check its stdout,
// stderr and exit status. Without that definition the suite is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/cli_run.h"

#ifdef STORMGUARD_CLI_PATH
#include <nlohmann/json.hpp>
#endif

namespace {
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

#ifndef STORMGUARD_CLI_PATH

TEST(BackoffCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

using stormguard::testkit::CliRun;
using stormguard::testkit::RunCli;

nlohmann::json Json(const std::string& args) {
  const CliRun run = RunCli(args + " --json");
  EXPECT_EQ(run.status, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

std::vector<double> Numbers(const nlohmann::json& array) { return array.get<std::vector<double> >(); }

TEST(BackoffCliTest, ReproducesSeedTableFixed) {
  const nlohmann::json j = Json("backoff --strategy fixed --base 100ms --retries 4");
  EXPECT_THAT(Numbers(j["waits_ms"]), ElementsAre(100, 100, 100, 100));
  EXPECT_EQ(j["total_ms"], 400.0);
}

TEST(BackoffCliTest, ReproducesSeedTableLinear) {
  const nlohmann::json j = Json("backoff --strategy linear --base 100ms --retries 4");
  EXPECT_THAT(Numbers(j["waits_ms"]), ElementsAre(100, 200, 300, 400));
  EXPECT_EQ(j["total_ms"], 1000.0);
}

TEST(BackoffCliTest, ReproducesSeedTableExponential) {
  const nlohmann::json j = Json("backoff --strategy exponential --base 100ms --retries 4");
  EXPECT_THAT(Numbers(j["waits_ms"]), ElementsAre(100, 200, 400, 800));
  EXPECT_EQ(j["total_ms"], 1500.0);
}

TEST(BackoffCliTest, ReproducesSeedTableFullJitter) {
  const nlohmann::json j = Json("backoff --strategy full-jitter --base 100ms --retries 4");
  EXPECT_EQ(j["ranges_ms"], nlohmann::json::parse("[[0,100],[0,200],[0,400],[0,800]]"));
  EXPECT_EQ(j["expected_total_ms"], 750.0);
  const std::vector<double> waits = Numbers(j["waits_ms"]);
  ASSERT_EQ(waits.size(), 4u);
  for (std::size_t i = 0; i < waits.size(); ++i) {
    EXPECT_GE(waits[i], 0.0);
    EXPECT_LE(waits[i], 100.0 * (1 << i));
  }
}

TEST(BackoffCliTest, DefaultsAreExponential100msCap30sFourRetriesSeed42) {
  const nlohmann::json j = Json("backoff");
  EXPECT_EQ(j["strategy"], "exponential");
  EXPECT_EQ(j["base_ms"], 100.0);
  EXPECT_EQ(j["cap_ms"], 30000.0);
  EXPECT_EQ(j["multiplier"], 2.0);
  EXPECT_EQ(j["retries"], 4);
  EXPECT_EQ(j["seed"], 42);
}

TEST(BackoffCliTest, JsonIsExactlyOneObject) {
  const CliRun run = RunCli("backoff --strategy equal-jitter --json");
  ASSERT_EQ(run.status, 0);
  EXPECT_TRUE(run.err.empty());
  const nlohmann::json j = nlohmann::json::parse(run.out);  // throws on trailing text
  ASSERT_TRUE(j.is_object());
  for (const char* key : {"waits_ms", "total_ms", "ranges_ms", "expected_total_ms"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(BackoffCliTest, DurationsAcceptEveryUnit) {
  EXPECT_EQ(Json("backoff --base 1.5s --cap 2m")["base_ms"], 1500.0);
  EXPECT_EQ(Json("backoff --base 1.5s --cap 2m")["cap_ms"], 120000.0);
  EXPECT_EQ(Json("backoff --base 250us")["base_ms"], 0.25);
  EXPECT_EQ(Json("backoff --base 5000000ns")["base_ms"], 5.0);
  EXPECT_EQ(Json("backoff --cap 1h")["cap_ms"], 3600000.0);
}

TEST(BackoffCliTest, MultiplierAndCapShapeTheWaits) {
  const nlohmann::json j = Json("backoff --base 1s --cap 5s --multiplier 3");
  EXPECT_THAT(Numbers(j["waits_ms"]), ElementsAre(1000, 3000, 5000, 5000));
}

TEST(BackoffCliTest, SeedFixesTheJitter) {
  const std::string args = "backoff --strategy decorrelated-jitter --retries 8";
  EXPECT_EQ(Json(args + " --seed 7"), Json(args + " --seed 7"));
  EXPECT_NE(Json(args + " --seed 7")["waits_ms"], Json(args + " --seed 8")["waits_ms"]);
}

TEST(BackoffCliTest, HumanTableShowsTheSeedRows) {
  const CliRun run = RunCli("backoff --strategy exponential");
  ASSERT_EQ(run.status, 0);
  EXPECT_THAT(run.out, HasSubstr("    1        100\n"
                                 "    2        200\n"
                                 "    3        400\n"
                                 "    4        800\n"
                                 "total       1500\n"));
  const CliRun jitter = RunCli("backoff --strategy full-jitter");
  EXPECT_THAT(jitter.out, HasSubstr("0 - 1500            750"));
  EXPECT_THAT(jitter.out, HasSubstr("expected total 750ms"));
}

// Each bad invocation: exit status 2, nothing on stdout, one line on stderr
// that starts with "stormguard: <flag>".
TEST(BackoffCliTest, BadFlagsPrintOneLineNamingTheFlagAndExitTwo) {
  const std::vector<std::pair<std::string, std::string> > cases = {
      {"backoff --base abc",
       "stormguard: --base: must be a duration such as \"250ms\", \"1.5s\" (units ns, us, ms, s, m, h), got \"abc\""},
      {"backoff --base 100", "stormguard: --base: must be a duration such as"},
      {"backoff --base=-5ms", "stormguard: --base: must not be negative, got \"-5ms\""},
      {"backoff --cap 10ms", "stormguard: --cap: must be at least base"},
      {"backoff --strategy random", "stormguard: --strategy: random not in"},
      {"backoff --retries 0", "stormguard: --retries:"},
      {"backoff --retries many", "stormguard: --retries:"},
      {"backoff --multiplier 0.5", "stormguard: --multiplier: '0.5' is not in [1, 1000]"},
      {"backoff --multiplier x", "stormguard: --multiplier: 'x' is not a finite number"},
      {"backoff --seed -1", "stormguard: --seed: '-1' is not an integer"},
      {"backoff --strategy decorrelated-jitter --base 0",
       "stormguard: --base: must be positive for decorrelated jitter"},
      {"backoff --bogus", "stormguard: The following argument was not expected: --bogus"},
      {"backoff --base", "stormguard: --base:"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun run = RunCli(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_TRUE(run.out.empty()) << args << ": " << run.out;
    EXPECT_THAT(run.err, StartsWith(message)) << args;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << args << ": " << run.err;
  }
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
