// The fleet-wide limit live: eight processes on loopback (fleet_member_main.cc)
// share 1,000 calls/s through one real Redis, with demand skewed 1:2:...:8
// (2,000/s in all). Steady for 30 s, the demand reversed, Redis killed,
// Redis back empty.
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "redis_process.h"
#include "sanitized.h"
#include "stormguard/fleet/lease_store.h"
#include "testkit/child_process.h"
#include "testkit/unix_ms.h"

namespace stormguard::redis {
namespace {
using namespace std::chrono_literals;
using stormguard::testkit::UnixMs;
using testkit::RedisProcess;

constexpr int kMembers = 8;
constexpr double kLimit = 1000, kDemand = 2000;
// Under a sanitizer the run only has to work (eight slowed processes on two
// cores); the figures are the plain build's.
constexpr auto kSteady = stormguard::testkit::kSanitized ? 4s : 10s;
constexpr auto kPhase = stormguard::testkit::kSanitized ? 3s : 10s;

// Member i's demand, calls/s: (i + 1) parts of the fleet's, or (n - i) reversed.
double Demand(int i, bool reversed) {
  return kDemand * (reversed ? kMembers - i : i + 1) / (kMembers * (kMembers + 1) / 2.0);
}

std::vector<double> Demands(bool reversed) {
  std::vector<double> d;
  for (int i = 0; i < kMembers; ++i) d.push_back(Demand(i, reversed));
  return d;
}

// One report line of a member: 100 ms of its calls.
struct Tick {
  std::int64_t at = 0;  // Unix ms, the end of the 100 ms
  long admitted = 0;
  double share = 0;  // its local rate, calls/s
};

class FleetLimitLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_.AddUser("fleet on >secret ~live:* +@all -@dangerous");
    ASSERT_TRUE(redis_.Start()) << "redis-server did not start (apt-get install redis-server)";
    dir_ = ::mkdtemp(pattern_);
  }
  void TearDown() override {
    for (pid_t& pid : members_) stormguard::testkit::KillChild(pid);
    std::filesystem::remove_all(dir_);
  }

  std::string Out(int i) const { return dir_ + "/member-" + std::to_string(i); }
  void StartFleet() {
    for (int i = 0; i < kMembers; ++i) {
      members_.push_back(stormguard::testkit::SpawnTiedChild({STORMGUARD_FLEET_MEMBER_PATH, redis_.address(), "fleet",
                                                              "secret", "member-" + std::to_string(i),
                                                              std::to_string(Demand(i, false)), Out(i)}));
    }
  }
  void Reverse() {
    for (int i = 0; i < kMembers; ++i) {
      std::ofstream(Out(i) + ".demand") << Demand(i, true);
      ::kill(members_[static_cast<std::size_t>(i)], SIGUSR1);
    }
  }

  std::vector<Tick> Ticks(int i) const {
    std::vector<Tick> ticks;
    std::ifstream in(Out(i));
    Tick t;
    while (in >> t.at >> t.admitted >> t.share) ticks.push_back(t);
    return ticks;
  }
  // Calls the fleet admitted in [from, to), Unix ms, per second.
  double AdmittedPerSecond(std::int64_t from, std::int64_t to) const {
    long n = 0;
    for (int i = 0; i < kMembers; ++i) {
      for (const Tick& t : Ticks(i)) n += (t.at > from && t.at <= to) ? t.admitted : 0;
    }
    return static_cast<double>(n) * 1000.0 / static_cast<double>(to - from);
  }
  // From `from` until every member's share stayed near its fair share of
  // the limit for `demands` until `to` (within 10% or three Poisson
  // standard deviations of a 1 s demand measurement); none: never.
  std::optional<double> SettledSeconds(std::int64_t from, std::int64_t to, const std::vector<double>& demands) const {
    const std::vector<double> fair = FairShares(kLimit, demands);
    std::int64_t last_far = from;
    for (int i = 0; i < kMembers; ++i) {
      const double f = fair[static_cast<std::size_t>(i)];
      for (const Tick& t : Ticks(i)) {
        if (t.at > from && t.at <= to && std::abs(t.share - f) > std::max(0.1 * f, 3 * std::sqrt(f))) {
          last_far = std::max(last_far, t.at);
        }
      }
    }
    if (last_far >= to - 1000) return std::nullopt;
    return static_cast<double>(last_far - from) / 1000.0;
  }

  RedisProcess redis_;
  char pattern_[32] = "/tmp/sg-fleet-XXXXXX";
  std::string dir_;
  std::vector<pid_t> members_;
};

TEST_F(FleetLimitLiveTest, EightProcessesShareOneThousandCallsASecondThroughRedisFaults) {
  StartFleet();
  // Steady: from the moment every member reports.
  for (int i = 0; i < kMembers; ++i) {
    for (int k = 0; k < 100 && Ticks(i).empty(); ++k) std::this_thread::sleep_for(50ms);
    ASSERT_FALSE(Ticks(i).empty()) << "member " << i << " never reported";
  }
  const std::int64_t steady = UnixMs();
  std::this_thread::sleep_for(kSteady);
  const std::int64_t shift = UnixMs();
  Reverse();
  std::this_thread::sleep_for(kPhase);
  const std::int64_t down = UnixMs();
  redis_.Kill();
  std::this_thread::sleep_for(kPhase);
  const std::int64_t back = UnixMs();
  ASSERT_TRUE(redis_.Start());  // empty: no persistence
  std::this_thread::sleep_for(kPhase);
  const std::int64_t end = UnixMs();

  const double steady_rate = AdmittedPerSecond(steady, shift);
  std::vector<double> down_seconds;
  for (std::int64_t s = down; s + 1000 <= back; s += 1000) down_seconds.push_back(AdmittedPerSecond(s, s + 1000));
  const auto [down_lo, down_hi] = std::minmax_element(down_seconds.begin(), down_seconds.end());
  const std::optional<double> shift_settled = SettledSeconds(shift, down, Demands(true));
  const std::optional<double> back_settled = SettledSeconds(back, end, Demands(true));
  const double back_rate = AdmittedPerSecond(back + 5000, end);
  std::printf(
      "steady %.1f/s over %.0f s; shares settled %.1f s after the shift; Redis down: %.0f to %.0f per second; "
      "back empty: settled after %.1f s, then %.1f/s\n",
      steady_rate, static_cast<double>(shift - steady) / 1000, shift_settled.value_or(-1), *down_lo, *down_hi,
      back_settled.value_or(-1), back_rate);
  if (stormguard::testkit::kSanitized) return;  // it ran: the figures are the plain build's
  EXPECT_NEAR(steady_rate, kLimit, 0.05 * kLimit);
  ASSERT_TRUE(shift_settled.has_value());
  EXPECT_LE(*shift_settled, 3.0);
  EXPECT_GE(*down_lo, 0.5 * kLimit);
  EXPECT_LE(*down_hi, 1.1 * kLimit);
  ASSERT_TRUE(back_settled.has_value());
  EXPECT_NEAR(back_rate, kLimit, 0.05 * kLimit);
}

}  // namespace
}  // namespace stormguard::redis
