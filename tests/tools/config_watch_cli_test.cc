// End-to-end tests of `stormguard config watch --file`: the built binary
// follows a file the test replaces by atomic renames, and the test reads
// its lines as they come. `timeout` bounds every run, so a hung watcher
// ends the read (EOF) instead of the test. Without STORMGUARD_CLI_PATH the
// suite is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/cli_run.h"

namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(ConfigWatchCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

using stormguard::testkit::CliRun;
using stormguard::testkit::RunCli;
using ::testing::HasSubstr;

class ConfigWatchCliTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override {
    if (pipe_ != nullptr) pclose(pipe_);
    std::filesystem::remove_all(dir_);
  }

  // Writes a new file and renames it over config.json: the operator's way.
  void Publish(const std::string& text) {
    const std::filesystem::path tmp = dir_ / "config.json.tmp";
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, path());
  }
  std::string path() const { return (dir_ / "config.json").string(); }
  std::string out_path() const { return (dir_ / "out").string(); }

  void StartWatch(const std::string& args) {
    const std::string cmd = std::string("timeout 20 '") + STORMGUARD_CLI_PATH + "' config watch " + args;
    pipe_ = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe_, nullptr);
  }
  // The watcher's next line, without its newline; "" at EOF.
  std::string NextLine() {
    char buf[1024];
    if (fgets(buf, sizeof buf, pipe_) == nullptr) return "";
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }
  int Wait() {
    const int raw = pclose(pipe_);
    pipe_ = nullptr;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }

 private:
  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("stormguard_config_watch_cli_" + std::to_string(::getpid()));
  FILE* pipe_ = nullptr;
};

constexpr const char* kV1 = R"({"destinations": {"inventory": {}}})";
constexpr const char* kV2 = R"({"destinations": {"inventory": {}, "payments": {}}})";
constexpr const char* kBad =
    R"({"destinations": {"inventory": {"pipeline": {"stages": [{"retry": {"max_attempts": 0}}]}}}})";

TEST_F(ConfigWatchCliTest, PrintsEachAcceptedAndRejectedVersionAsItArrives) {
  Publish(kV1);
  StartWatch("--file " + path() + " --poll 10ms --count 3");
  EXPECT_EQ(NextLine(), "version 1 accepted: file:" + path() + " revision 1");
  Publish(kBad);
  EXPECT_EQ(NextLine(), "rejected, version 1 stays: file:" + path() + " revision 2");
  EXPECT_EQ(NextLine(), "  destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at least 1");
  Publish(kV2);
  EXPECT_EQ(NextLine(), "version 2 accepted: file:" + path() + " revision 3");
  EXPECT_EQ(NextLine(), "");  // --count 3 reached: it ends by itself
  EXPECT_EQ(Wait(), 0);
}

TEST_F(ConfigWatchCliTest, AMissingFileIsARejectionAndItsArrivalIsAVersion) {
  StartWatch("--file " + path() + " --poll 10ms --count 2");
  EXPECT_EQ(NextLine(), "rejected, the built-in default stays: file:" + path());
  EXPECT_THAT(NextLine(), HasSubstr("No such file or directory"));
  Publish(kV1);
  EXPECT_EQ(NextLine(), "version 1 accepted: file:" + path() + " revision 1");
  EXPECT_EQ(Wait(), 0);
}

TEST_F(ConfigWatchCliTest, ATermSignalEndsItWithStatusZero) {
  Publish(kV1);
  // The signal goes only after the first line: the watcher blocks SIGTERM
  // before it reads, so a loaded machine (a sanitizer build is slow to
  // start) cannot kill it before it is ready. The wait is bounded (20 s).
  const std::string out = out_path();
  StartWatch("--file " + path() + " --poll 10ms > '" + out + "' & pid=$!; for i in $(seq 2000); do [ -s '" + out +
             "' ] && break; sleep 0.01; done; kill -TERM $pid; wait $pid; status=$?; cat '" + out + "'; exit $status");
  EXPECT_EQ(NextLine(), "version 1 accepted: file:" + path() + " revision 1");
  EXPECT_EQ(NextLine(), "");
  EXPECT_EQ(Wait(), 0);
}

TEST_F(ConfigWatchCliTest, BadFlagsNameTheFieldAndExitTwo) {
  const CliRun neither = RunCli("config watch");
  EXPECT_EQ(neither.status, 2);
  EXPECT_THAT(neither.err, HasSubstr("give either --file or --etcd"));
  const CliRun both = RunCli("config watch --file x.json --etcd http://127.0.0.1:2379 --key k");
  EXPECT_EQ(both.status, 2);
  EXPECT_THAT(both.err, HasSubstr("give either --file or --etcd"));
  const CliRun no_key = RunCli("config watch --etcd http://127.0.0.1:2379");
  EXPECT_EQ(no_key.status, 2);
  EXPECT_THAT(no_key.err, HasSubstr("--key"));
  const CliRun count = RunCli("config watch --file x.json --count 0");
  EXPECT_EQ(count.status, 2);
  EXPECT_THAT(count.err, HasSubstr("--count: '0' is not in [1, 1e+06]"));
  const CliRun poll = RunCli("config watch --file x.json --poll 0s");
  EXPECT_EQ(poll.status, 2);
  EXPECT_THAT(poll.err, HasSubstr("--poll: must be in [1ms, 1h]"));
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
