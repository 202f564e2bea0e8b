// The real `stormguard demo`: three service processes on loopback, both
// modes, short phases. Tolerances are wide enough for a loaded 2-core
// machine; what they check cannot happen by chance (27x vs 1.5x).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "cli_process.h"
#include "promtool.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;
using testkit::CliProcess;

TEST(DemoIntegrationTest, StormguardStopsTheStormThatNaiveRetriesStart) {
  CliProcess cli({"demo", "--json", "--healthy", "3s", "--down", "2s", "--recovered", "3s", "--svg", "timeline.svg"});
  const int status = cli.Wait(100s);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << cli.Stderr();
  const auto j = nlohmann::json::parse(cli.Stdout());
  const auto& naive = j.at("naive");
  const auto& sg = j.at("stormguard");

  // C down: naive multiplies at every hop (3 x 3 x 3), stormguard does not.
  EXPECT_GE(naive.at("down").at("amplification").get<double>(), 15.0) << j.dump(2);
  EXPECT_LE(sg.at("down").at("amplification").get<double>(), 1.5) << j.dump(2);
  // Healthy with 1% errors, 1% slow and lost responses: stormguard hides them.
  EXPECT_GE(sg.at("healthy").at("success_rate").get<double>(), 0.99) << j.dump(2);
  // Back above 99% within a few seconds of C's recovery.
  ASSERT_FALSE(sg.at("recovered").at("recovery_ms").is_null()) << j.dump(2);
  EXPECT_LE(sg.at("recovered").at("recovery_ms").get<double>(), 2000.0) << j.dump(2);
  // A charge whose answer was lost takes effect once with an idempotency
  // key; blind retries charge twice.
  std::uint64_t naive_duplicates = 0;
  for (const char* phase : {"healthy", "down", "recovered"}) {
    EXPECT_EQ(sg.at(phase).at("duplicate_effects").get<std::uint64_t>(), 0u) << phase;
    EXPECT_LE(sg.at(phase).at("orphan_ratio").get<double>(), 0.01) << phase;
    EXPECT_GT(sg.at(phase).at("offered").get<std::uint64_t>(), 50u) << phase;
    naive_duplicates += naive.at(phase).at("duplicate_effects").get<std::uint64_t>();
  }
  EXPECT_GT(naive_duplicates, 0u) << j.dump(2);

  const std::string svg = testkit::ReadFile(cli.dir() / "timeline.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("stormguard</text>"), std::string::npos);
  // Every service process stopped: none was left to this (subreaper) process.
  EXPECT_TRUE(testkit::ChildrenOf(::getpid()).empty());
}

TEST(DemoIntegrationTest, PrintsOneTablePerPhaseWithBothModes) {
  CliProcess cli({"demo", "--healthy", "1s", "--down", "1s", "--recovered", "1s", "--rate", "20"});
  const int status = cli.Wait(60s);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << cli.Stderr();
  const std::string out = cli.Stdout();
  for (const char* text : {"healthy (1.0 s)", "down (1.0 s, after 1.0 s without load)", "recovered (1.0 s)",
                           "amplification", "naive ", "stormguard ", "timeline: "}) {
    EXPECT_NE(out.find(text), std::string::npos) << text << "\n" << out;
  }
  EXPECT_TRUE(std::filesystem::exists(cli.dir() / "stormguard-demo.svg"));
  EXPECT_TRUE(testkit::ChildrenOf(::getpid()).empty());
}

// The three services of a demo that runs long enough to be stopped mid-way.
std::vector<pid_t> ServicesOnceServing(const CliProcess& cli, const std::string& first_phase = "healthy") {
  EXPECT_TRUE(cli.AwaitStderr("naive: " + first_phase, 20s)) << cli.Stderr();
  std::vector<pid_t> services = testkit::ChildrenOf(cli.pid());
  EXPECT_EQ(services.size(), 3u);
  return services;
}

TEST(DemoIntegrationTest, InterruptStopsEveryServiceBeforeTheDemoDies) {
  CliProcess cli({"demo", "--healthy", "30s"});
  const std::vector<pid_t> services = ServicesOnceServing(cli);
  ASSERT_EQ(::kill(cli.pid(), SIGINT), 0);
  const int status = cli.Wait(10s);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  // The demo reaped them itself: nothing was handed to this process.
  for (pid_t pid : services) EXPECT_NE(::kill(pid, 0), 0) << pid;
  EXPECT_TRUE(testkit::ChildrenOf(::getpid()).empty());
  // The timeline is written only for a run that finished: no file, not
  // even an empty one or a temporary one, is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(cli.dir())) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "stdout" || name == "stderr") << name;
  }
}

TEST(DemoIntegrationTest, ServicesStopByThemselvesWhenTheDemoIsKilled) {
  CliProcess cli({"demo", "--healthy", "30s"});
  const std::vector<pid_t> services = ServicesOnceServing(cli);
  ASSERT_EQ(::kill(cli.pid(), SIGKILL), 0);
  cli.Wait(5s);
  // Orphaned, they are reparented to this subreaper and die of PDEATHSIG.
  for (pid_t pid : services) EXPECT_NE(testkit::WaitFor(pid, 5s), -1) << pid;
}

// The command line a process was started with, its words split at NUL.
std::vector<std::string> CommandLine(pid_t pid) {
  const std::string raw = testkit::ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> words;
  for (std::size_t at = 0; at < raw.size();) {
    const std::size_t end = raw.find('\0', at);
    words.push_back(raw.substr(at, end - at));
    at = end == std::string::npos ? raw.size() : end + 1;
  }
  return words;
}

// A run longer than the old fixed 120 s lifetime: the services must not stop
// by themselves before it ends (and still must stop by themselves after).
TEST(DemoIntegrationTest, ServicesLiveAsLongAsTheRunPlusTheSlack) {
  CliProcess cli({"demo", "--soak", "150s", "--rate", "20"});
  const std::vector<pid_t> services = ServicesOnceServing(cli, "soak");
  for (pid_t pid : services) {
    const std::vector<std::string> words = CommandLine(pid);
    const auto flag = std::find(words.begin(), words.end(), "--max-lifetime");
    ASSERT_NE(flag, words.end()) << pid;
    ASSERT_NE(flag + 1, words.end()) << pid;
    EXPECT_EQ(*(flag + 1), "210") << pid;  // 150 s of load + 60 s to start, drain and read the ledger
  }
  ASSERT_EQ(::kill(cli.pid(), SIGINT), 0);
  cli.Wait(10s);
  EXPECT_TRUE(testkit::ChildrenOf(::getpid()).empty());
}

TEST(DemoIntegrationTest, BadFlagsExitWithStatusTwoAndNameTheFlag) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"demo", "--rate", "0"},
                                               {"demo", "--down", "abc"},
                                               {"demo", "--down", "10ms"},
                                               {"demo", "--healthy", "61m"},
                                               {"demo", "--soak", "2h"},
                                               {"demo", "--soak", "100ms"},
                                               {"demo", "--soak", "10s", "--down", "1s"},
                                               {"demo", "--recovered", "1s", "--soak", "10s"},
                                               {"demo", "--bogus"},
                                               {"demo", "--svg", "/nonexistent/dir/t.svg"},
                                               {"demo", "--rate", "nan"},
                                               {"demo", "--seed", "-1"},
                                               {"demo", "--replicas", "9"},
                                               {"demo", "--replicas", "3", "--down", "1s"},
                                               {"demo", "--replicas", "3", "--soak", "5s"},
                                               {"demo", "--gray", "5s"},
                                               {"demo", "--gray-share", "nan"},
                                               {"demo", "--gray-mode", "sideways"},
                                               {"demo", "--gray-latency", "abc"}}) {
    CliProcess cli(args);
    const int status = cli.Wait(10s);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << args[1] << " " << status;
    const std::string err = cli.Stderr();
    EXPECT_NE(err.find(args[1]), std::string::npos) << err;
    EXPECT_EQ(err.find("naive: starting"), std::string::npos) << err;  // refused before running
    EXPECT_EQ(err.find('\n'), err.size() - 1) << err;                  // one line
  }
}

// A loopback port nobody listens on now (the kernel's pick).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

TEST(DemoIntegrationTest, ServesMetricsThatPromtoolAcceptsWhileItRuns) {
  const int port = FreePort();
  ASSERT_NE(port, 0);
  CliProcess cli({"demo", "--healthy", "2s", "--down", "1s", "--recovered", "1s", "--rate", "20", "--metrics-port",
                  std::to_string(port)});
  // The stormguard mode runs second. On a quiet machine its first attempts
  // succeed during its healthy phase. Under a sanitizer on two busy cores the
  // chain can be slower than the demo's deadline for the whole run, and
  // every attempt then ends transient or "do not retry". So the scrape
  // repeats until it counts a success or the run ends, and what it must hold
  // is attempts recorded by outcome, whichever outcome that is.
  ASSERT_TRUE(cli.AwaitStderr("stormguard: healthy", 60s)) << cli.Stderr();
  const std::string success = "stormguard_attempts_total{name=\"demo\",outcome=\"success\"}";
  std::optional<httplib::Response> res;
  for (int i = 0; i < 600; ++i) {  // 60 s at most
    if (auto r = httplib::Client("127.0.0.1", port).Get("/metrics")) res = *r;
    if (res && res->body.find(success) != std::string::npos) break;
    if (cli.Stderr().find("stormguard: every operation answered") != std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(res) << cli.Stderr();
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("stormguard_attempts_total{name=\"demo\",outcome=\""), std::string::npos) << res->body;
  EXPECT_NE(res->body.find("stormguard_config_reloads_accepted_total{name=\"demo\"} 1\n"), std::string::npos)
      << res->body;
  // The process's timer thread, watched (a sanitizer's slowdown may push a
  // callback past the bound, so the count is not asserted here).
  EXPECT_NE(res->body.find("stormguard_timer_slow_callbacks_total{name=\"timers\"} "), std::string::npos) << res->body;
  const http::testkit::Lint lint = http::testkit::Promtool(res->body);
  EXPECT_EQ(lint.exit_code, 0) << lint.output << "\n--- the scrape:\n" << res->body;
  EXPECT_EQ(lint.output, "");
  const int status = cli.Wait(60s);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << cli.Stderr();
  EXPECT_NE(cli.Stderr().find("metrics: http://127.0.0.1:" + std::to_string(port) + "/metrics"), std::string::npos);
}

TEST(DemoIntegrationTest, RefusesAMetricsPortOutOfRange) {
  CliProcess cli({"demo", "--metrics-port", "65536"});
  const int status = cli.Wait(10s);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status;
  EXPECT_NE(cli.Stderr().find("--metrics-port"), std::string::npos) << cli.Stderr();
}

}  // namespace
}  // namespace stormguard::demo
