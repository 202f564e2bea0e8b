// End-to-end tests of `stormguard config check` and `config show`: the
// built binary on files written to a temp directory. Without
// STORMGUARD_CLI_PATH the suite is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/cli_run.h"

namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(ConfigCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

using stormguard::testkit::CliRun;
using stormguard::testkit::RunCli;
using ::testing::HasSubstr;

// A file under the test's temp directory holding `text`; removed at the end of the test.
class ConfigCliTest : public ::testing::Test {
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
      std::filesystem::temp_directory_path() / ("stormguard_config_cli_" + std::to_string(::getpid()));
};

TEST_F(ConfigCliTest, AValidFileExitsZero) {
  const std::string f = Write("ok.json", R"({"destinations": {"a": {}, "b": {}}})");
  const CliRun r = RunCli("config check " + f);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, f + ": ok, stormguard config, 2 destinations\n");
}

TEST_F(ConfigCliTest, AGrpcServiceConfigIsRecognised) {
  const std::string f = Write("grpc.json", R"({"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}})");
  const CliRun r = RunCli("config check " + f);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, f + ": ok, gRPC service config, 1 destination\n");
}

TEST_F(ConfigCliTest, EveryErrorWithItsPathAndExitOne) {
  const std::string f = Write("bad.json", R"({"destinations": {"inventory": {
      "bulkhead": {"max_concurrent": 0}, "pipeline": {"stages": [{"retry": {"max_attempts": 0}}]}}}})");
  const CliRun r = RunCli("config check " + f);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, f + ": destinations.inventory.bulkhead.max_concurrent: must be at least 1\n" + f +
                       ": destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at least 1\n" + f +
                       ": 2 errors\n");
}

TEST_F(ConfigCliTest, AMissingFileIsAFlagError) {
  const CliRun r = RunCli("config check /nonexistent/stormguard.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("stormguard.json"));
}

TEST_F(ConfigCliTest, ConfigNeedsASubcommand) {
  const CliRun r = RunCli("config");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("'stormguard config' needs a command: check, show, watch"));
}

// A destination with shared components, its own stages and method entries.
constexpr const char* kInventory = R"({"destinations": {"inventory": {
    "retry_budget": {"token_bucket": {"max_tokens": 20}},
    "circuit_breaker": {"window_size": 50, "minimum_number_of_calls": 20},
    "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}, {"retry": {"max_attempts": 4}}, "circuit_breaker"]},
    "methods": {"GET /stock": {"timeout": "250ms"}, "*": {"hedge": {"delay": "50ms"}}}}}})";

TEST_F(ConfigCliTest, ShowPrintsEveryOptionOfComponentsStagesAndMethods) {
  const CliRun r = RunCli("config show " + Write("inventory.json", kInventory));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Set options and the defaults around them, one per line.
  EXPECT_THAT(r.out, HasSubstr("destination inventory\n  shared components\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    circuit_breaker.window_size +50\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    circuit_breaker.wait_in_open +30s\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    retry_budget.token_bucket.max_tokens +20.0\n"));
  EXPECT_THAT(r.out, HasSubstr("  pipeline, outermost first\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    stages\\[0\\] timeout.timeout +1s\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    stages\\[1\\] retry.max_attempts +4\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    stages\\[1\\] retry.backoff.kind +exponential\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    stages\\[2\\] circuit_breaker +the destination's"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    GET /stock  timeout +250ms\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    GET /stock  overrides.timeout +replaces stages\\[0\\]\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    \\*  hedge.delay +50ms\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("    \\*  overrides.hedge +adds a hedge stage\n"));
}

TEST_F(ConfigCliTest, ShowJsonHoldsTheSameContent) {
  const CliRun r = RunCli("config show --json " + Write("inventory.json", kInventory));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "stormguard config");
  const nlohmann::json& d = j["destinations"]["inventory"];
  EXPECT_EQ(d["components"]["circuit_breaker"]["window_size"], 50);
  EXPECT_EQ(d["components"]["circuit_breaker"]["wait_in_open"], "30s");
  EXPECT_EQ(d["components"]["retry_budget"]["token_bucket"]["max_tokens"], 20);
  EXPECT_EQ(d["pipeline"]["stages"][0]["timeout"]["timeout"], "1s");
  EXPECT_EQ(d["pipeline"]["stages"][1]["retry"]["max_attempts"], 4);
  EXPECT_EQ(d["pipeline"]["stages"][1]["retry"]["backoff"]["kind"], "exponential");
  EXPECT_EQ(d["pipeline"]["stages"][2], "circuit_breaker");
  EXPECT_FALSE(d["pipeline"].contains("preset"));
  EXPECT_EQ(d["methods"]["GET /stock"]["timeout"], "250ms");
  EXPECT_EQ(d["methods"]["GET /stock"]["overrides"]["timeout"], "replaces stages[0]");
  EXPECT_EQ(d["methods"]["*"]["overrides"]["hedge"], "adds a hedge stage");
}

// A preset is shown as the stages it builds, with its options, and
// third_party_api's own breaker as a component.
TEST_F(ConfigCliTest, ShowExpandsAPreset) {
  const std::string f = Write("preset.json", R"({"destinations": {
      "search": {"pipeline": {"user_facing": {"entry_timeout": "2s"}}, "methods": {"*": {"retry": {}}}},
      "maps": {"pipeline": {"third_party_api": {}}}}})");
  const CliRun r = RunCli("config show --json " + f);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& search = j["destinations"]["search"];
  EXPECT_EQ(search["pipeline"]["preset"]["user_facing"]["entry_timeout"], "2s");
  ASSERT_EQ(search["pipeline"]["stages"].size(), 2u);
  EXPECT_EQ(search["pipeline"]["stages"][0]["timeout"]["timeout"], "2s");
  EXPECT_EQ(search["pipeline"]["stages"][1]["retry"]["max_attempts"], 3);
  EXPECT_EQ(search["pipeline"]["stages"][1]["retry"]["backoff"]["cap"], "2s");
  EXPECT_EQ(search["methods"]["*"]["overrides"]["retry"], "replaces stages[1]");
  const nlohmann::json& maps = j["destinations"]["maps"];
  EXPECT_EQ(maps["pipeline"]["stages"][0], "require_idempotency_key");
  EXPECT_EQ(maps["pipeline"]["stages"][2], "circuit_breaker");
  EXPECT_EQ(maps["components"]["circuit_breaker"]["wait_in_open"], "30s");
  EXPECT_EQ(maps["notes"][0], "circuit_breaker: third_party_api's own (the destination configures none)");

  const CliRun table = RunCli("config show " + f);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("  pipeline: preset user_facing (at_entry true, entry_timeout 2s, idempotent false, "
                                   "max_attempts 3), its stages outermost first\n"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("    stages\\[1\\] retry.backoff.cap +2s\n"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("    stages\\[0\\] require_idempotency_key +\\(no options\\)\n"));
  EXPECT_THAT(table.out, HasSubstr("destination search\n  shared components\n    (none)\n"));
  EXPECT_THAT(table.out,
              HasSubstr("  note: circuit_breaker: third_party_api's own (the destination configures none)\n"));
}

TEST_F(ConfigCliTest, ShowAGrpcServiceConfig) {
  const std::string f = Write("grpc.json", R"({"methodConfig": [{"name": [{"service": "pkg.Svc"}],
      "timeout": "2s", "retryPolicy": {"maxAttempts": 9, "initialBackoff": "0.1s", "maxBackoff": "1s",
      "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}],
      "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}})");
  const CliRun r = RunCli("config show --json --grpc-destination greeter " + f);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "gRPC service config");
  const nlohmann::json& d = j["destinations"]["greeter"];
  EXPECT_EQ(d["components"]["retry_budget"]["grpc_throttle"]["max_tokens"], 10);
  const nlohmann::json& m = d["methods"]["pkg.Svc/*"];
  EXPECT_EQ(m["timeout"], "2s");
  EXPECT_EQ(m["retry"]["max_attempts"], 5);  // gRPC caps maxAttempts at 5
  EXPECT_EQ(m["retry"]["retryable_status_codes"], nlohmann::json::array({"UNAVAILABLE"}));
  EXPECT_EQ(m["overrides"]["timeout"], "adds a timeout stage");
  EXPECT_EQ(m["overrides"]["retry"], "adds a retry stage");

  const CliRun table = RunCli("config show --grpc-destination greeter " + f);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_THAT(table.out, ::testing::ContainsRegex("    pkg.Svc/\\*  retry.retryable_status_codes +UNAVAILABLE\n"));
}

TEST_F(ConfigCliTest, ShowPrintsAChaosStageWithEveryOption) {
  const std::string f = Write("chaos.json", R"({"destinations": {"inventory": {"pipeline": {"stages": [
      {"retry": {}}, {"chaos": {"kind": "latency", "rate": 0.1, "latency": "20ms", "latency_max": "80ms"}}]}}}})");
  const CliRun r = RunCli("config show --json " + f);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& chaos = j["destinations"]["inventory"]["pipeline"]["stages"][1]["chaos"];
  EXPECT_EQ(chaos["kind"], "latency");
  EXPECT_EQ(chaos["enabled"], true);
  EXPECT_EQ(chaos["rate"], 0.1);
  EXPECT_EQ(chaos["latency"], "20ms");
  EXPECT_EQ(chaos["latency_max"], "80ms");
  EXPECT_EQ(chaos["status"]["code"], "UNAVAILABLE");
  EXPECT_EQ(chaos["seed"], 0);
  EXPECT_EQ(chaos["outside_retry_because"], "");

  const CliRun table = RunCli("config show " + f);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_THAT(table.out, ::testing::ContainsRegex("    stages\\[1\\] chaos.kind +latency\n"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("    stages\\[1\\] chaos.latency_max +80ms\n"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("    stages\\[1\\] chaos.status.code +UNAVAILABLE\n"));
}

TEST_F(ConfigCliTest, ShowReportsErrorsAsCheckDoes) {
  const std::string f = Write("bad.json", R"({"destinations": {"inventory": {
      "pipeline": {"stages": [{"hedge": {}}, {"retry": {"max_attempts": 0}}]}}}})");
  const CliRun r = RunCli("config show " + f);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, RunCli("config check " + f).err);
  EXPECT_THAT(r.err,
              HasSubstr(f + ": destinations.inventory.pipeline.stages[1].retry.max_attempts: must be at least 1\n"));
  EXPECT_THAT(r.err, HasSubstr(f + ": destinations.inventory.pipeline.stages[0]: outside retry (stages[1]) "));
  EXPECT_EQ(RunCli("config show /nonexistent/stormguard.json").status, 2);
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
