// A fleet-wide limit from the configuration, live: four processes
// (limit_follower_main.cc) follow one key in a real etcd and share their
// limit through one real Redis, as services would with
// RegistryOptions::lease_stores. Each wants 300 calls/s (1,200 in all). An
// operator puts a global_rate_limit of 400/s, raises it to 800/s, then puts
// garbage: the fleet admits what the configuration in force says, within
// 2 s of each put, and a refused put changes nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "etcd_process.h"
#include "redis_process.h"
#include "sanitized.h"
#include "testkit/child_process.h"
#include "testkit/unix_ms.h"

namespace stormguard::redis {
namespace global_limit_reload_test {
using namespace std::chrono_literals;
using stormguard::testkit::UnixMs;

constexpr int kMembers = 4;
constexpr double kDemandEach = 300;
constexpr const char* kKey = "/fleet/policies";
// How close the fleet's admitted rate must come to the limit in force; the
// slowed processes of a sanitizer run only have to follow the changes.
constexpr double kTolerance = stormguard::testkit::kSanitized ? 0.3 : 0.1;

std::string LimitConfig(double limit) {
  return R"({"destinations": {"db": {
    "global_rate_limit": {"name": "db", "limit": )" +
         std::to_string(limit) + R"(, "burst": 20, "refresh_interval": "250ms",
                          "lease_length": "2s", "initial_instances": 4},
    "pipeline": {"stages": ["global_rate_limit"]}}}})";
}

class GlobalLimitReloadLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_.AddUser("fleet on >secret ~live:* +@all -@dangerous");
    ASSERT_TRUE(redis_.Start()) << "redis-server did not start (apt-get install redis-server)";
    ASSERT_TRUE(etcd_.Start()) << "etcd did not start (apt-get install etcd-server)";
    dir_ = ::mkdtemp(pattern_);
    std::ofstream(dir_ + "/password") << "secret\n";
  }
  void TearDown() override {
    for (pid_t& pid : members_) stormguard::testkit::KillChild(pid);
    std::filesystem::remove_all(dir_);
  }

  std::string Out(int i) const { return dir_ + "/member-" + std::to_string(i); }
  void StartFleet() {
    for (int i = 0; i < kMembers; ++i) {
      members_.push_back(stormguard::testkit::SpawnTiedChild({STORMGUARD_LIMIT_FOLLOWER_PATH, etcd_.endpoint(), kKey,
                                                              redis_.address(), "fleet", dir_ + "/password",
                                                              "member-" + std::to_string(i),
                                                              std::to_string(kDemandEach), Out(i)}));
    }
  }
  // Calls the fleet admitted in (from, to], Unix ms, per second.
  double AdmittedPerSecond(std::int64_t from, std::int64_t to) const {
    long n = 0;
    for (int i = 0; i < kMembers; ++i) {
      std::ifstream in(Out(i));
      std::int64_t at = 0;
      long admitted = 0;
      while (in >> at >> admitted) n += (at > from && at <= to) ? admitted : 0;
    }
    return static_cast<double>(n) * 1000.0 / static_cast<double>(to - from);
  }
  bool EveryMemberReports() const {
    for (int i = 0; i < kMembers; ++i) {
      if (std::filesystem::file_size(Out(i), ec_) == 0 || ec_) return false;
    }
    return true;
  }
  // Ms after `from` until the first 500 ms in which the fleet admitted at
  // least `rate` per second (-1: never before `to`).
  std::int64_t FirstReaching(std::int64_t from, std::int64_t to, double rate) const {
    for (std::int64_t t = from; t + 500 <= to; t += 100) {
      if (AdmittedPerSecond(t, t + 500) >= rate) return t - from;
    }
    return -1;
  }
  // The fleet's admitted rate from 2 s to 4 s after `from` (Unix ms, now).
  double Measure(std::int64_t from) const {
    std::this_thread::sleep_for(4s);
    return AdmittedPerSecond(from + 2000, from + 4000);
  }
  // Puts `text`, then measures the fleet as Measure does.
  double PutAndMeasure(const std::string& text) {
    EXPECT_GT(etcd_.Put(kKey, text), 0);
    put_ = UnixMs();
    return Measure(put_);
  }

  testkit::RedisProcess redis_;
  config_sources::testkit::EtcdProcess etcd_;
  char pattern_[32] = "/tmp/sg-glimit-XXXXXX";
  std::string dir_;
  std::vector<pid_t> members_;
  mutable std::error_code ec_;
  std::int64_t put_ = 0;  // Unix ms of the last put
};

TEST_F(GlobalLimitReloadLiveTest, APutInEtcdSetsWhatTheWholeFleetAdmits) {
  ASSERT_GT(etcd_.Put(kKey, LimitConfig(400)), 0);
  StartFleet();
  for (int k = 0; k < 200 && !EveryMemberReports(); ++k) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(EveryMemberReports()) << "a member never started";

  const double at_400 = Measure(UnixMs());
  const double at_800 = PutAndMeasure(LimitConfig(800));
  const std::int64_t reached_ms = FirstReaching(put_, put_ + 4000, 0.9 * 800);
  const double after_garbage = PutAndMeasure(R"({"destinations": {"db": {"global_rate_limit": {"limit": -5}}}})");
  std::printf(
      "fleet of %d wanting %.0f/s admitted: limit 400 -> %.1f/s; put 800 -> %.1f/s (90%% of it %lld ms after the put); "
      "garbage -> %.1f/s\n",
      kMembers, kMembers * kDemandEach, at_400, at_800, static_cast<long long>(reached_ms), after_garbage);
  EXPECT_NEAR(at_400, 400, 400 * kTolerance);
  EXPECT_NEAR(at_800, 800, 800 * kTolerance) << "the raised limit did not reach every member's calls within 2 s";
  EXPECT_GE(reached_ms, 0);
  EXPECT_LE(reached_ms, 2000);
  EXPECT_NEAR(after_garbage, 800, 800 * kTolerance) << "a refused configuration must leave the limit in force";
}

}  // namespace global_limit_reload_test
}  // namespace stormguard::redis
