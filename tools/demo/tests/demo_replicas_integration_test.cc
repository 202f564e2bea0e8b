// A short run of the real `stormguard demo --replicas 3`: C as three
// processes, replica 0 failing every operation of the gray phase with a 503.
// Naive round-robins its attempts over the replicas and keeps sending a
// third of them to the gray one; stormguard's replica set ejects it after
// three failures in a row and takes it back once it healed. Bounds are
// loose for a loaded 2-core machine; the run takes about 15 s.
//
// The stormguard mode runs the demo's policies with one change: the
// replicas are picked in turn (round_robin), not by peak EWMA. Peak EWMA
// stops picking a replica whose latency peaked (a slow answer cut by a
// hedge) until another one peaks higher, so whether the gray replica gets
// the three calls that eject it within a 3 s phase is left to chance;
// picked in turn, it gets them at once (docs/demo.md).
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_process.h"
#include "demo/demo_config.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;
using testkit::CliProcess;

// The demo's stormguard.json with the replicas picked in turn, in a file
// of its own; removed with the object.
class RoundRobinPolicies {
 public:
  RoundRobinPolicies()
      : path_(std::filesystem::temp_directory_path() / ("replicas-rr-" + std::to_string(::getpid()) + ".json")) {
    std::string text(DemoConfigText());
    const std::string picker = "\"p2c_peak_ewma\"";
    text.replace(text.find(picker), picker.size(), "\"round_robin\"");
    std::ofstream(path_) << text;
  }
  ~RoundRobinPolicies() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(DemoReplicasIntegrationTest, StormguardEjectsTheGrayReplicaAndTakesItBack) {
  const RoundRobinPolicies policies;
  CliProcess cli({"demo", "--json", "--replicas", "3", "--gray-mode", "fail", "--gray-share", "1", "--healthy", "1s",
                  "--gray", "3s", "--healed", "4s", "--svg", "replicas.svg", "--config", policies.path()});
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
  EXPECT_FALSE(sg.at("gray_replica").at("share_back_ms").is_null()) << j.dump(2);  // it takes calls again
  EXPECT_FALSE(naive.at("gray_replica").at("share_back_ms").is_null()) << j.dump(2);
}

}  // namespace
}  // namespace stormguard::demo
