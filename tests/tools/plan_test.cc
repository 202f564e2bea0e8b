// `stormguard plan` over three 3-layer chains (3 attempts per layer) whose
// bottom is down: computed and simulated attempts agree at 27x without
// controls, 7x with the retry flag, and about 1x with a token bucket; plus
// the deadlines handed down, the top's worst case, the cap on what is
// simulated, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "plan/plan.h"
#include "plan/plan_report.h"
#include "tools/cli_run.h"

namespace {

using namespace std::chrono_literals;
using stormguard::Duration;
using stormguard::plan::Plan;

const std::string kData = std::string(STORMGUARD_SOURCE_DIR) + "/tests/tools/plan/";

Plan PlanOf(const std::string& file) {
  auto chain = stormguard::lint::LoadChain(kData + file);
  EXPECT_TRUE(chain.ok()) << chain.status().message();
  auto hops = stormguard::lint::HopsOf(*chain);
  EXPECT_TRUE(hops.ok()) << hops.status().message();
  auto plan = stormguard::plan::MakePlan(*chain, *hops);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return *plan;
}

TEST(PlanTest, EveryLayerRetryingMultipliesToTwentySeven) {
  const Plan p = PlanOf("storm_chain.json");
  ASSERT_EQ(p.layers.size(), 4u);
  EXPECT_EQ(p.simulated_requests, 999);  // one every 10 ms for 10 s
  const double want[] = {1, 3, 9, 27};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(p.layers[i].uncontrolled, want[i]) << i;
    EXPECT_DOUBLE_EQ(p.layers[i].expected, want[i]) << i;
    EXPECT_DOUBLE_EQ(p.layers[i].simulated, want[i]) << i;
  }
}

TEST(PlanTest, TheRetryFlagMakesGrowthLinear) {
  const Plan p = PlanOf("flag_chain.json");
  const double want[] = {1, 3, 5, 7};
  const double without[] = {1, 3, 9, 27};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(p.layers[i].uncontrolled, without[i]) << i;
    EXPECT_DOUBLE_EQ(p.layers[i].with_flag, want[i]) << i;
    EXPECT_DOUBLE_EQ(p.layers[i].expected, want[i]) << i;
    EXPECT_DOUBLE_EQ(p.layers[i].simulated, want[i]) << i;
  }
}

TEST(PlanTest, ABudgetBoundsRetriesToAboutOne) {
  const Plan p = PlanOf("budget_chain.json");
  // Ten tokens per hop, never refilled while every call fails: 30 retries over 999 requests.
  EXPECT_DOUBLE_EQ(p.layers[3].uncontrolled, 27);
  EXPECT_NEAR(p.layers[3].expected, 1029.0 / 999, 1e-9);
  EXPECT_GE(p.layers[3].simulated, 1.0);
  EXPECT_LE(p.layers[3].simulated, p.layers[3].expected + 1e-9);
  EXPECT_GT(p.layers[3].simulated, 1.02);  // the tokens are spent: the bound is reached
}

TEST(PlanTest, DeadlinesShrinkByTheReserveAndTheTopWaitsForItsAttempts) {
  const Plan p = PlanOf("storm_chain.json");
  EXPECT_EQ(p.layers[0].time_left, stormguard::kInfiniteDuration);
  EXPECT_EQ(p.layers[1].time_left, 900ms);  // a 1 s attempt less 10%
  EXPECT_EQ(p.layers[2].time_left, 810ms);
  EXPECT_EQ(p.layers[3].time_left, 729ms);
  // Three 1 s attempts and the longest backoff waits (10 ms, then 20 ms).
  EXPECT_EQ(p.top_latency, 3030ms);
}

Plan PlanOf(const std::string& file, const stormguard::plan::PlanOptions& options) {
  auto chain = stormguard::lint::LoadChain(kData + file);
  auto hops = stormguard::lint::HopsOf(*chain);
  auto plan = stormguard::plan::MakePlan(*chain, *hops, options);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return *plan;
}

using stormguard::plan::Simulation;

TEST(PlanTest, TheSimulationCostsTheComputedCallsPerRequest) {
  const Plan p = PlanOf("storm_chain.json");
  EXPECT_EQ(p.simulation, Simulation::kFull);
  EXPECT_DOUBLE_EQ(p.calls_per_request, 1 + 3 + 9 + 27);
  EXPECT_EQ(p.requested, 1000);
  EXPECT_DOUBLE_EQ(PlanOf("flag_chain.json").calls_per_request, 1 + 3 + 5 + 7);
}

TEST(PlanTest, PastTheCapFewerRequestsAreSimulatedAndTheCapIsReported) {
  const Plan p = PlanOf("storm_chain.json", {.max_calls = 4000});  // 100 requests of 40 calls
  EXPECT_EQ(p.simulation, Simulation::kCapped);
  EXPECT_EQ(p.simulated_requests, 100);
  EXPECT_DOUBLE_EQ(p.layers[3].simulated, 27);
  EXPECT_DOUBLE_EQ(p.layers[3].expected, 27);
  EXPECT_THAT(stormguard::plan::PlanText(p),
              ::testing::HasSubstr("simulated over 100 requests only (capped: 40 calls per request, at most 4000 "
                                   "simulated)\n"));
  // A budget's allowance is spread over the requests that ran: 30 retries over 100.
  EXPECT_NEAR(PlanOf("budget_chain.json", {.max_calls = 4000}).layers[3].expected, 130.0 / 100, 1e-9);
}

TEST(PlanTest, WhenOneRequestPassesTheCapNothingIsSimulated) {
  const Plan p = PlanOf("storm_chain.json", {.max_calls = 39});  // not even one request of 40 calls
  EXPECT_EQ(p.simulation, Simulation::kSkipped);
  EXPECT_EQ(p.simulated_requests, 0);
  EXPECT_DOUBLE_EQ(p.layers[3].uncontrolled, 27);
  EXPECT_DOUBLE_EQ(p.layers[3].simulated, 0);
  const std::string text = stormguard::plan::PlanText(p);
  EXPECT_THAT(text, ::testing::ContainsRegex("\nbottom +27x +27x +27x +- +729ms\n"));
  EXPECT_THAT(text, ::testing::HasSubstr("not simulated (capped: 40 calls per request, at most 39 simulated)\n"));
  EXPECT_EQ(stormguard::plan::PlanJson(p)["layers"][3]["simulated"], nullptr);
  EXPECT_EQ(stormguard::plan::PlanJson(p)["simulation"]["run"], "skipped");
  // The budgets' bound is then that of the run asked for: 30 retries over 1000 requests.
  EXPECT_NEAR(PlanOf("budget_chain.json", {.max_calls = 39}).layers[3].expected, 1030.0 / 1000, 1e-9);
}

#ifdef STORMGUARD_CLI_PATH

using stormguard::testkit::CliRun;
using stormguard::testkit::RunCli;

TEST(PlanCliTest, PrintsComputedBesideSimulated) {
  const CliRun r = RunCli("plan " + kData + "storm_chain.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\nbottom +27x +27x +27x +27.00x +729ms\n"));
  const CliRun j = RunCli("plan --json " + kData + "flag_chain.json");
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["layers"][3]["retry_flag"], 7);
  EXPECT_EQ(doc["layers"][3]["simulated"], 7);
}

TEST(PlanCliTest, BadChainExitsTwoNamingFileAndField) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "stormguard_plan_test";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kData + "storm.json", dir / "storm.json",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string chain = (dir / "chain.json").string();
  std::ofstream(chain) << R"({"services": [{"name": "top", "config": "storm.json", "calls": "nowhere"},)"
                          R"( {"name": "bottom"}]})";
  const CliRun r = RunCli("plan " + chain);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(chain + ": services[0].calls: destination \"nowhere\""), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

#endif

}  // namespace
