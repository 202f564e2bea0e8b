// `stormguard plan`, `lint` and `config check` on hostile chains and
// configs, run as the built binary within a memory, CPU and wall-clock
// bound: the longest chain the format allows, each layer retrying every
// failure (3^63 attempts at the bottom: computed, never enumerated), an
// attempt count of 2^31 - 1, repeated service names, and the numbers a
// gRPC service config must refuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/bounded_run.h"

namespace stormguard::testkit {
namespace {
using ::testing::HasSubstr;

#ifndef STORMGUARD_CLI_PATH

TEST(HostilePlanLintTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

// Every layer retries every failure 3 times, also while serving a retry.
constexpr const char* kNaive = R"({"destinations": {"next": {"pipeline": {"stages": [
  {"retry": {"max_attempts": 3, "backoff": {"base": "10ms", "cap": "100ms", "jitter": "full"},
             "per_attempt_timeout": "1s", "idempotent": true, "retry_when_serving_a_retry": true}}]}}}})";

class HostilePlanLintTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("stormguard_hostile_plan_" + std::to_string(::getpid()));

  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // A chain of the services `names`, each calling the next with `config`.
  std::string Chain(const std::vector<std::string>& names, const std::string& config = "naive.json") {
    std::string services;
    for (std::size_t i = 0; i < names.size(); ++i) {
      services += (i == 0 ? "" : ", ") + std::string(R"({"name": ")") + names[i] + "\"";
      if (i + 1 < names.size()) services += R"(, "config": ")" + config + R"(", "calls": "next")";
      services += "}";
    }
    return Write("chain.json", R"({"services": [)" + services + "]}");
  }

  std::string NaiveChain(int services) {
    Write("naive.json", kNaive);
    std::vector<std::string> names;
    for (int i = 0; i < services; ++i) names.push_back("s" + std::to_string(i));
    return Chain(names);
  }
};

struct Timed {
  BoundedRun run;
  double seconds = 0;
};

Timed RunTimed(const std::string& args) {
  const auto start = std::chrono::steady_clock::now();
  Timed t{RunBounded(args)};
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

int ExitStatus(const BoundedRun& run) {
  EXPECT_TRUE(WIFEXITED(run.wait_status)) << "killed by signal " << WTERMSIG(run.wait_status) << ": " << run.err;
  return WIFEXITED(run.wait_status) ? WEXITSTATUS(run.wait_status) : -1;
}

// The lines of the table (after the title, before the notes) are equally long.
void ExpectAlignedTable(const std::string& out, std::size_t rows) {
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);  // the title
  std::vector<std::string> table;
  for (std::size_t i = 0; i <= rows && std::getline(in, line);) table.push_back(line), ++i;
  ASSERT_EQ(table.size(), rows + 1) << out;
  for (const std::string& l : table) EXPECT_EQ(l.size(), table.front().size()) << out;
}

TEST_F(HostilePlanLintTest, PlanOfTheLongestNaiveChainIsComputedNotSimulated) {
  const std::string chain = NaiveChain(64);
  const Timed t = RunTimed("plan " + chain);
  ASSERT_EQ(ExitStatus(t.run), 0) << t.run.err;
  EXPECT_LT(t.seconds, 5.0);
  EXPECT_THAT(t.run.out, HasSubstr("not simulated (capped: 1.72e+30 calls per request, at most 1000000 simulated)"));
  // 3^63 at the bottom, in three digits; the exact counts up to 2^53.
  EXPECT_THAT(t.run.out, ::testing::ContainsRegex("\ns63  +1.14e\\+30x  +1.14e\\+30x  +1.14e\\+30x  +-  +1ms\n"));
  EXPECT_THAT(t.run.out, ::testing::ContainsRegex("\ns33  +5559060566555523x  +"));
  ExpectAlignedTable(t.run.out, 64);
  const Timed json = RunTimed("plan --json " + chain);
  ASSERT_EQ(ExitStatus(json.run), 0) << json.run.err;
  EXPECT_LT(json.seconds, 5.0);
  EXPECT_THAT(json.run.out, HasSubstr(R"("run": "skipped")"));
}

TEST_F(HostilePlanLintTest, PlanOfALongChainSimulatesFewerRequestsAndSaysSo) {
  const Timed t = RunTimed("plan " + NaiveChain(10));  // 29524 calls per request: 33 requests fit
  ASSERT_EQ(ExitStatus(t.run), 0) << t.run.err;
  EXPECT_LT(t.seconds, 5.0);
  EXPECT_THAT(t.run.out, HasSubstr("simulated over 33 requests only (capped: 29524 calls per request, at most "
                                   "1000000 simulated)"));
  EXPECT_THAT(t.run.out, ::testing::ContainsRegex("\ns9  +19683x  +19683x  +19683x  +19683.00x  +"));
  ExpectAlignedTable(t.run.out, 10);
}

TEST_F(HostilePlanLintTest, LintOfTheLongestNaiveChain) {
  const Timed t = RunTimed("lint " + NaiveChain(64));
  EXPECT_EQ(ExitStatus(t.run), 1) << t.run.err;  // SG001 errors
  EXPECT_LT(t.seconds, 5.0);
  EXPECT_THAT(t.run.out, HasSubstr("SG001"));
}

TEST_F(HostilePlanLintTest, MaxAttemptsOfTwoToTheThirtyOneIsRefusedWithItsPath) {
  std::string huge = kNaive;
  huge.replace(huge.find("\"max_attempts\": 3"), 17, "\"max_attempts\": 2147483647");
  const std::string config = Write("huge.json", huge);
  const std::string field = "destinations.next.pipeline.stages[0].retry.max_attempts: must be at most 1000";
  const Timed check = RunTimed("config check " + config);
  EXPECT_EQ(ExitStatus(check.run), 1);
  EXPECT_THAT(check.run.err, HasSubstr(config + ": " + field));
  const std::string chain = Chain({"A", "B", "C"}, "huge.json");
  for (const std::string command : {"lint ", "plan "}) {
    const Timed t = RunTimed(command + chain);
    EXPECT_EQ(ExitStatus(t.run), 2) << command;
    EXPECT_LT(t.seconds, 5.0) << command;
    EXPECT_THAT(t.run.err, HasSubstr(chain + ": services[0].config: huge.json: " + field)) << command;
    EXPECT_EQ(t.run.out, "") << command;
  }
}

TEST_F(HostilePlanLintTest, RepeatedServiceNamesAreRefused) {
  Write("naive.json", kNaive);
  const std::string chain = Chain({"A", "B", "A", "B"});
  for (const std::string command : {"lint ", "plan "}) {
    const Timed t = RunTimed(command + chain);
    EXPECT_EQ(ExitStatus(t.run), 2) << command;
    EXPECT_EQ(t.run.out, "") << command;
    EXPECT_EQ(t.run.err, chain + ": services[2].name: \"A\" is already the name of services[0]\n" + chain +
                             ": services[3].name: \"B\" is already the name of services[1]\n")
        << command;
  }
}

TEST_F(HostilePlanLintTest, GrpcNumbersAreRefusedWithTheirReason) {
  const auto retry = [](const std::string& attempts, const std::string& codes, const std::string& backoff) {
    return R"({"methodConfig": [{"name": [{"service": "s"}], "retryPolicy": {"maxAttempts": )" + attempts +
           R"(, "initialBackoff": "0.1s", "maxBackoff": ")" + backoff +
           R"(", "backoffMultiplier": 2, "retryableStatusCodes": [)" + codes + "]}}]}";
  };
  const std::string path = ": methodConfig[0].retryPolicy.";
  const struct {
    std::string config, error;
  } cases[] = {
      {retry("1e20", R"("UNAVAILABLE")", "1s"), path + "maxAttempts: must be at most 4294967295"},
      {retry("2.5", R"("UNAVAILABLE")", "1s"), path + "maxAttempts: must be a whole number"},
      {retry("3", R"("OK")", "1s"),
       path + "retryableStatusCodes[0]: must be a failure code, not OK (a success is never retried or hedged)"},
      {retry("3", R"("UNAVAILABLE")", "1000000s"), path + "maxBackoff: must be at most 604800s (168h)"},
  };
  for (const auto& [text, error] : cases) {
    const std::string f = Write("grpc.json", text);
    const Timed t = RunTimed("config check " + f);
    EXPECT_EQ(ExitStatus(t.run), 1) << text;
    EXPECT_EQ(t.run.err, f + error + "\n" + f + ": 1 error\n") << text;
  }
}

#endif

}  // namespace
}  // namespace stormguard::testkit
