// End-to-end tests of `stormguard simulate`: the built binary's tables,
// JSON, SVG, errors and exit statuses. Skipped without STORMGUARD_CLI_PATH.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tools/cli_run.h"

#ifdef STORMGUARD_CLI_PATH
#include <nlohmann/json.hpp>
#endif

namespace stormguard::testkit {
namespace {
using ::testing::HasSubstr;
using ::testing::StartsWith;

#ifndef STORMGUARD_CLI_PATH

TEST(SimulateCliTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

nlohmann::json Json(const std::string& args) {
  const CliRun run = RunCli(args + " --json");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");  // no progress bar when --json (nor when stderr is not a terminal)
  return nlohmann::json::parse(run.out);
}

TEST(SimulateCliTest, StormReproducesThePublishedTable) {
  const nlohmann::json fixed = Json("simulate storm --backoff fixed");
  EXPECT_EQ(fixed["total_retries"], 4000);
  EXPECT_EQ(fixed["peak_per_bucket"], 1000);
  EXPECT_EQ(fixed["last_retry_s"], 4.0);
  const nlohmann::json expo = Json("simulate storm --backoff exponential");
  EXPECT_EQ(expo["peak_per_bucket"], 1000);
  EXPECT_EQ(expo["last_retry_s"], 15.0);
  const nlohmann::json full = Json("simulate storm --backoff full-jitter");
  EXPECT_EQ(full["total_retries"], 4000);
  EXPECT_GE(full["peak_per_bucket"].get<int>(), 130);
  EXPECT_LE(full["peak_per_bucket"].get<int>(), 200);
}

TEST(SimulateCliTest, StormWithoutBackoffListsEveryStrategy) {
  const CliRun run = RunCli("simulate storm");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* s : {"fixed", "exponential", "full-jitter", "equal-jitter", "decorrelated-jitter"}) {
    EXPECT_THAT(run.out, HasSubstr(s));
  }
  EXPECT_EQ(Json("simulate storm")["strategies"].size(), 5u);
}

TEST(SimulateCliTest, ChainAmplificationIsExactWithoutControls) {
  const nlohmann::json j = Json("simulate chain --control none --failure error --duration 5s");
  EXPECT_EQ(j["amplification"], 27.0);
  EXPECT_EQ(j["bottom_attempts"].get<long>(), 27 * j["offered"].get<long>());
  EXPECT_EQ(j["success_rate"], 0.0);
  EXPECT_EQ(j["layers"], 3);
  ASSERT_EQ(j["by_layer"].size(), 4u);
  EXPECT_EQ(j["by_layer"][3]["layer"], "bottom");
  EXPECT_EQ(j["by_layer"][3]["arrivals"], j["bottom_attempts"]);
}

TEST(SimulateCliTest, DeadlineReproducesThePublishedRun) {
  const nlohmann::json j = Json(
      "simulate deadline --budget 250ms --call 60ms --max-attempts 5 --base 20ms --cap 200ms "
      "--min-call 60ms --max-tokens 10 --token-ratio 0.1 --seed 7");
  EXPECT_EQ(j["calls"], 3);
  EXPECT_EQ(j["tokens_left"], 8.0);
  EXPECT_EQ(j["stop_reason"], "deadline");
  EXPECT_EQ(j["stop_explanation"], "the remaining budget cannot fit another wait plus a call");
  EXPECT_LE(j["elapsed_ms"].get<double>(), 250.0);
  const CliRun table = RunCli("simulate deadline");
  EXPECT_THAT(table.out, HasSubstr("the remaining budget cannot fit another wait plus a call"));
}

TEST(SimulateCliTest, BudgetRunsOutInAboutTwentyMilliseconds) {
  const nlohmann::json j =
      Json("simulate budget --rate 1000 --failure-rate 0.5 --max-tokens 10 --token-ratio 0.1 --duration 10s");
  EXPECT_GE(j["exhausted_after_ms"].get<double>(), 10.0);
  EXPECT_LE(j["exhausted_after_ms"].get<double>(), 40.0);
  EXPECT_NEAR(j["retries_per_request_after"].get<double>(), 0.05, 0.01);
}

TEST(SimulateCliTest, MetastableStaysDownWithoutControlsAndRecoversWithAll) {
  const nlohmann::json none = Json("simulate metastable --control none");
  EXPECT_GT(none["goodput_before"].get<double>(), 0.99);
  EXPECT_LT(none["goodput_after"].get<double>(), 0.05);
  EXPECT_TRUE(none["recovery_s"].is_null());
  const nlohmann::json all = Json("simulate metastable --control all");
  EXPECT_GT(all["goodput_after"].get<double>(), 0.95);
  EXPECT_LE(all["recovery_s"].get<double>(), 3.0);
}

TEST(SimulateCliTest, ChainWithoutControlListsEveryControl) {
  const nlohmann::json j = Json("simulate chain --duration 5s");
  ASSERT_EQ(j["controls"].size(), 7u);
  EXPECT_EQ(j["controls"][0]["control"], "none");
  EXPECT_EQ(j["controls"][0]["amplification"], 27.0);
  for (const auto& run : j["controls"]) {
    if (run["control"] != "none") {
      EXPECT_LT(run["amplification"].get<double>(), 27.0) << run["control"];
    }
  }
}

TEST(SimulateCliTest, SameSeedSameBytes) {
  for (const char* args :
       {"simulate storm", "simulate deadline", "simulate budget --duration 2s",
        "simulate chain --duration 3s --failure-rate 0.5",
        "simulate metastable --duration 25s --trigger-at 5s --trigger-for 5s", "simulate contention --runs 3"}) {
    const CliRun a = RunCli(std::string(args) + " --seed 17 --series");
    const CliRun b = RunCli(std::string(args) + " --seed 17 --series");
    ASSERT_EQ(a.status, 0) << args << ": " << a.err;
    EXPECT_EQ(a.out, b.out) << args;
    const CliRun j1 = RunCli(std::string(args) + " --seed 17 --json");
    const CliRun j2 = RunCli(std::string(args) + " --seed 17 --json");
    EXPECT_EQ(j1.out, j2.out) << args;
  }
}

TEST(SimulateCliTest, BadFlagsAndValuesFailWithOneLineNamingTheFlag) {
  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string> >{
           {"simulate storm --clients 0", "--clients"},
           {"simulate storm --base 1x", "--base"},
           {"simulate storm --base 2s --cap 1s", "--cap"},
           {"simulate storm --backoff linear-ish", "--backoff"},
           {"simulate chain --control sometimes", "--control"},
           {"simulate chain --failure-rate 2", "--failure-rate"},
           {"simulate metastable --drop -1", "--drop"},
           {"simulate deadline --base 300ms", "--cap: must be at least base"},
           {"simulate deadline --max-tokens 0", "--max-tokens"},
           {"simulate budget --duration 0s", "--duration: must be positive"},
           {"simulate storm --no-such-flag", "--no-such-flag"}}) {
    const CliRun run = RunCli(args);
    EXPECT_EQ(run.status, 2) << args;
    EXPECT_EQ(run.out, "") << args;
    EXPECT_THAT(run.err, StartsWith("stormguard: ")) << args;
    EXPECT_THAT(run.err, HasSubstr(flag)) << args;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << args << ": " << run.err;
  }
}

TEST(SimulateCliTest, UnknownScenarioIsAnError) {
  const CliRun run = RunCli("simulate avalanche");
  EXPECT_EQ(run.status, 2);
}

TEST(SimulateCliTest, SvgWritesAPlotWithOneLinePerStrategy) {
  const std::string path = ::testing::TempDir() + "storm_plot.svg";
  const CliRun run = RunCli("simulate storm --svg " + path);
  ASSERT_EQ(run.status, 0) << run.err;
  std::ifstream f(path);
  std::stringstream svg;
  svg << f.rdbuf();
  EXPECT_THAT(svg.str(), StartsWith("<svg "));
  int lines = 0;
  for (std::size_t at = svg.str().find("<polyline"); at != std::string::npos;
       at = svg.str().find("<polyline", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 5);
  std::remove(path.c_str());
}

TEST(SimulateCliTest, AdaptiveTimeoutPrintsTheTableAndRepeatsItsBytes) {
  const std::string args = "simulate adaptive-timeout --phase 3s --seed 5";
  const CliRun run = RunCli(args);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("mode          phase  calls  success  attempts/call  timeouts"));
  EXPECT_THAT(run.out, HasSubstr("fixed      degraded    600"));
  EXPECT_THAT(run.out, HasSubstr("adaptive timeout every 1s (ms):"));
  EXPECT_EQ(RunCli(args).out, run.out);  // same seed, same bytes
  const nlohmann::json j = Json(args);
  EXPECT_EQ(j["modes"][0]["mode"], "fixed");
  EXPECT_LT(j["modes"][0]["phases"][1]["success_rate"].get<double>(), 0.05);
  EXPECT_GT(j["modes"][1]["phases"][1]["success_rate"].get<double>(), 0.9);
  const CliRun bad = RunCli("simulate adaptive-timeout --quantile 0");
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("--quantile: must be in (0, 1], got 0"));
}

TEST(SimulateCliTest, FleetPrintsEveryPickerAndRefusesOneViewPerClient) {
  const std::string args = "simulate fleet --clients 100 --client-groups 2 --replicas 20 --requests 2000 --rate 500";
  const CliRun run = RunCli(args);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("20 replicas, 2 of them gray (50% of their answers take 1.2s)"));
  EXPECT_THAT(run.out, HasSubstr("p2c_peak_ewma"));
  EXPECT_EQ(RunCli(args).out, run.out);  // same seed, same bytes
  const nlohmann::json j = Json(args + " --picker round_robin --ejection on");
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["picker"], "round_robin");
  EXPECT_EQ(j["runs"][0]["requests"], 2000);
  const CliRun bad = RunCli("simulate fleet --client-groups 10000");
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("--client-groups: 10000 client groups x 1000 replicas makes 1e+07 endpoint objects"));
}

TEST(SimulateCliTest, ThrottleComparesTheStrategiesByteForByteForASeed) {
  const std::string args = "simulate throttle --duration 1m --rate 500 --k 2";
  const CliRun run = RunCli(args);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("throttle k=2.00"));
  EXPECT_EQ(RunCli(args).out, run.out);  // same seed, same bytes
  const nlohmann::json j = Json(args);
  ASSERT_EQ(j["runs"].size(), 3u);
  EXPECT_EQ(j["runs"][2]["strategy"], "throttle");
  EXPECT_LE(j["runs"][2]["received_per_accepted"].get<double>(), 2.2);
  EXPECT_GE(j["runs"][0]["received_per_accepted"].get<double>(), 10.0);
  const CliRun bad = RunCli("simulate throttle --k 0.5");
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("--k"));
}

TEST(SimulateCliTest, HedgeComparesTheRunsByteForByteForASeed) {
  const std::string path = ::testing::TempDir() + "hedge_plot.svg";
  const std::string args = "simulate hedge --leaves 20 --requests 2000 --svg " + path;
  const CliRun run = RunCli(args);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("the tail-at-scale preset"));
  EXPECT_THAT(run.out, HasSubstr("fixed 10ms"));
  EXPECT_THAT(run.out, HasSubstr("live p95"));
  EXPECT_EQ(RunCli(args).out, run.out);  // same seed, same bytes
  std::ifstream f(path);
  std::stringstream svg;
  svg << f.rdbuf();
  EXPECT_THAT(svg.str(), StartsWith("<svg "));
  EXPECT_THAT(svg.str(), HasSubstr("fan-out, live p95"));
  std::remove(path.c_str());
  const nlohmann::json j = Json("simulate hedge --leaves 20 --requests 2000 --tail exponential --tail-scale 3ms");
  ASSERT_EQ(j["runs"].size(), 3u);
  EXPECT_EQ(j["runs"][2]["mode"], "live");
  EXPECT_EQ(j["latency"]["tail"], "exponential");
  EXPECT_GT(j["runs"][1]["extra_load"].get<double>(), 0.0);
  EXPECT_LT(j["runs"][1]["fan_out"]["p999_ms"].get<double>(), j["runs"][0]["fan_out"]["p999_ms"].get<double>());
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::testkit
