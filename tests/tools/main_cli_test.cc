// `stormguard` itself: --version, and a word that is not a command.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/cli_run.h"

namespace stormguard::testkit {
namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(MainCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

TEST(MainCliTest, VersionPrintsTheProjectVersion) {
  const CliRun run = RunCli("--version");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "stormguard " STORMGUARD_VERSION "\n");
  EXPECT_EQ(run.err, "");
}

TEST(MainCliTest, AWordThatIsNotACommandIsNamedWithTheChoices) {
  const std::pair<const char*, const char*> cases[] = {
      {"nope",
       "stormguard: 'nope' is not a command of 'stormguard' (use backoff, simulate, demo, config, lint, plan)\n"},
      {"simulate nope",
       "stormguard: 'nope' is not a command of 'stormguard simulate' "
       "(use storm, deadline, budget, chain, metastable, contention, adaptive-timeout, fleet, fleet-limit, "
       "throttle, hedge)\n"},
      {"simulate",
       "stormguard: 'stormguard simulate' needs a command: "
       "storm, deadline, budget, chain, metastable, contention, adaptive-timeout, fleet, fleet-limit, throttle, "
       "hedge\n"},
      {"", "stormguard: 'stormguard' needs a command: backoff, simulate, demo, config, lint, plan\n"}};
  for (const auto& [args, message] : cases) {
    const CliRun run = RunCli(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(run.out, "") << args;
    EXPECT_EQ(run.err, message) << args;
  }
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::testkit
