// End-to-end tests of `stormguard config check`: the built binary on files
// written to a temp directory. Without STORMGUARD_CLI_PATH the suite is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/cli_run.h"

namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(ConfigCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

using ::testing::HasSubstr;
using stormguard::testing::CliRun;
using stormguard::testing::RunCli;

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
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() /
                               ("stormguard_config_cli_" + std::to_string(::getpid()));
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
  EXPECT_THAT(r.err, HasSubstr("'stormguard config' needs a command: check"));
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
