// A short run of the real `stormguard demo --replicas 3`: C as three
// processes, replica 0 failing half of the gray phase's operations with a
// 503. Naive round-robins its attempts over the replicas and keeps sending a
// third of them to the gray one; stormguard's replica set ejects it after
// consecutive failures and takes it back once it healed. Bounds are loose
// for a loaded 2-core machine; the run takes about 15 s.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_process.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;
using testkit::CliProcess;

TEST(DemoReplicasIntegrationTest, StormguardEjectsTheGrayReplicaAndTakesItBack) {
  CliProcess cli({"demo", "--json", "--replicas", "3", "--gray-mode", "fail", "--healthy", "1s", "--gray", "3s",
                  "--healed", "3s", "--svg", "replicas.svg"});
  const int status = cli.Wait(60s);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << cli.Stderr();
  const auto j = nlohmann::json::parse(cli.Stdout());
  const auto& naive = j.at("naive");
  const auto& sg = j.at("stormguard");
  ASSERT_TRUE(sg.contains("gray")) << j.dump(2);
  EXPECT_EQ(sg.at("gray").at("duplicate_effects"), 0u);  // GET /stock only

  const double naive_share = naive.at("gray_replica").at("gray_share").get<double>();
  const double sg_share = sg.at("gray_replica").at("gray_share").get<double>();
  EXPECT_GT(naive_share, 0.2) << j.dump(2);  // its turn comes every third attempt
  EXPECT_LT(sg_share, naive_share) << j.dump(2);
  EXPECT_LT(sg_share, 0.10) << j.dump(2);
  EXPECT_GE(sg.at("gray").at("success_rate").get<double>(), 0.99) << j.dump(2);
  EXPECT_FALSE(naive.at("gray_replica").contains("ejected_ms"));  // naive has no replica set
  EXPECT_FALSE(sg.at("gray_replica").at("ejected_ms").is_null()) << j.dump(2);
  EXPECT_FALSE(sg.at("gray_replica").at("readmitted_ms").is_null()) << j.dump(2);
}

}  // namespace
}  // namespace stormguard::demo
