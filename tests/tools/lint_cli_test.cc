// End-to-end tests of `stormguard lint`: the built binary over the demo's own
// chains (its naive policies and its stormguard configuration) and over bad
// input. Without STORMGUARD_CLI_PATH the suite is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "lint/lint_report.h"
#include "tools/cli_run.h"

namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(LintCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

using stormguard::testkit::CliRun;
using stormguard::testkit::RunCli;
using ::testing::HasSubstr;

const std::string kDemo = std::string(STORMGUARD_SOURCE_DIR) + "/tools/demo/lint/";

TEST(LintCliTest, NaiveDemoChainReportsItsAntiPatterns) {
  const CliRun r = RunCli("lint --json " + kDemo + "naive_chain.json");
  EXPECT_EQ(r.status, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::set<std::string> rules;
  for (const auto& f : j["findings"]) rules.insert(f["rule"].get<std::string>());
  // Retries at every layer, no jitter, POST retried blindly, no budget,
  // timeouts that do not shrink, 5xx "permanent" answers retried.
  EXPECT_EQ(rules, (std::set<std::string>{"SG001", "SG002", "SG003", "SG004", "SG005", "SG010"}));
  EXPECT_EQ(j["errors"], 11);
}

TEST(LintCliTest, StormguardDemoChainReportsNothing) {
  const CliRun r = RunCli("lint " + kDemo + "stormguard_chain.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0 errors, 0 warnings, 0 disabled\n");
}

TEST(LintCliTest, TextNamesRuleServiceDestinationFieldAndFix) {
  const CliRun r = RunCli("lint " + kDemo + "naive_chain.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("SG002 warning B -> bottom: retry.backoff.jitter: none"));
  EXPECT_THAT(r.out, HasSubstr("fix: set retry.backoff.jitter to full"));
}

// The parts of SARIF 2.1.0 that code-review tools read.
TEST(LintCliTest, SarifHasTheRequiredShape) {
  const CliRun r = RunCli("lint --sarif " + kDemo + "naive_chain.json");
  EXPECT_EQ(r.status, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], "2.1.0");
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& run = j["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "stormguard lint");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), 11u);
  ASSERT_EQ(run["results"].size(), 17u);
  for (const auto& res : run["results"]) {
    EXPECT_THAT(std::string(res["ruleId"]), ::testing::StartsWith("SG"));
    EXPECT_TRUE(res["level"] == "error" || res["level"] == "warning");
    EXPECT_TRUE(res["message"]["text"].is_string());
    EXPECT_EQ(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "naive.json");
  }
}

// A config path becomes a valid URI reference whatever its bytes.
TEST(LintCliTest, SarifLocationsArePercentEncodedPaths) {
  EXPECT_EQ(stormguard::lint::PathAsUriReference("configs/relay-b_v2.json"), "configs/relay-b_v2.json");
  EXPECT_EQ(stormguard::lint::PathAsUriReference("my config 100%.json"), "my%20config%20100%25.json");
  EXPECT_EQ(stormguard::lint::PathAsUriReference("a:b.json"), "a%3Ab.json");
  EXPECT_EQ(stormguard::lint::PathAsUriReference("\xc3\xa9t\xc3\xa9.json"), "%C3%A9t%C3%A9.json");
  EXPECT_EQ(stormguard::lint::PathAsUriReference(std::string("x\0y", 3)), "x%00y");
}

class LintCliBadInputTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

 private:
  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("stormguard_lint_cli_" + std::to_string(::getpid()));
};

TEST_F(LintCliBadInputTest, NamesTheFileAndFieldAndExitsTwo) {
  Write("a.json", R"({"destinations": {"d": {}}})");
  const std::string chain = Write("chain.json", R"({"services": [
      {"name": "A", "config": "a.json", "calls": "nowhere", "disable": {"SG999": "x", "SG002": ""}},
      {"name": "B", "rate": -1}]})");
  const CliRun r = RunCli("lint " + chain);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("chain.json: services[0].disable.SG999: unknown rule id"));
  EXPECT_THAT(r.err, HasSubstr("chain.json: services[0].disable.SG002: needs a reason"));
  EXPECT_THAT(r.err, HasSubstr("chain.json: services[1].rate: must be a number in [0, 1000000000]"));
  EXPECT_EQ(r.out, "");
}

TEST_F(LintCliBadInputTest, ConfigErrorsCarryTheirPath) {
  Write("a.json", R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {"max_attempts": 0}}]}}}})");
  const std::string chain =
      Write("chain.json", R"({"services": [{"name": "A", "config": "a.json", "calls": "d"}, {"name": "B"}]})");
  const CliRun r = RunCli("lint " + chain);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("chain.json: services[0].config: a.json: destinations.d."));
  EXPECT_THAT(r.err, HasSubstr("max_attempts"));
}

TEST_F(LintCliBadInputTest, MissingDestinationAndNotJson) {
  Write("a.json", R"({"destinations": {"d": {}}})");
  CliRun r = RunCli("lint " + Write("chain.json", R"({"services": [{"name": "A", "config": "a.json",
      "calls": "e"}, {"name": "B"}]})"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("services[0].calls: destination \"e\" is not in a.json"));
  r = RunCli("lint " + Write("bad.json", "{"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("bad.json: document: parse error"));
}

TEST_F(LintCliBadInputTest, AKeyGivenTwiceIsRefusedWithItsPath) {
  Write("a.json", R"({"destinations": {"d": {}}})");
  const CliRun r = RunCli("lint " + Write("chain.json", R"({"services": [{"name": "A", "config": "a.json",
      "calls": "d", "calls": "e"}, {"name": "B"}]})"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("chain.json: services[0]: has the key \"calls\" twice in one object"));
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
