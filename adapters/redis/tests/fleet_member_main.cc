// One instance of a fleet sharing a rate limit through Redis: the process
// the live fleet test starts eight of.
//
//   stormguard_fleet_member <redis host:port> <user> <password> <instance> <demand/s> <out file>
//
// It wants <demand> calls per second, evenly spaced, each taking a token of
// the fleet-wide limit "fleet" (1,000/s, burst 100, refreshed every second,
// leases of 5 s, on a background executor, as a service would run it).
// SIGUSR1 switches its demand to the file <out file>.demand's number. Every
// 100 ms it appends "<unix ms> <admitted in those 100 ms> <its share/s>" to
// <out file>. It exits when its parent does (PR_SET_PDEATHSIG, set by the test).
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "stormguard/exec/executor.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/redis/redis_lease_store.h"
#include "testkit/unix_ms.h"

namespace {

std::atomic<bool> demand_changed{false};
void OnUsr1(int) { demand_changed = true; }
using stormguard::testkit::UnixMs;

}  // namespace

int main(int argc, char** argv) {
  using namespace stormguard;
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s <redis host:port> <user> <password> <instance> <demand/s> <out file>\n", argv[0]);
    return 2;
  }
  const std::string out_path = argv[6];
  double demand = std::stod(argv[5]);
  ::signal(SIGUSR1, OnUsr1);
  auto store = redis::RedisLeaseStore::Create({.address = argv[1],
                                               .user = argv[2],
                                               .password = argv[3],
                                               .prefix = "live",
                                               .limit_name = "fleet",
                                               .capacity = 1000,
                                               .lease_length = std::chrono::seconds(5)});
  auto executor = Executor::Create({.threads = 1});
  if (!store.ok() || !executor.ok()) return 1;
  auto limiter = GlobalRateLimiter::Create({.name = "fleet",
                                            .instance_id = argv[4],
                                            .limit = 1000,
                                            .burst = 100,
                                            .refresh_interval = std::chrono::seconds(1),
                                            .lease_length = std::chrono::seconds(5),
                                            .initial_instances = 8,
                                            .executor = executor->get()},
                                           *store);
  if (!limiter.ok()) {
    std::fprintf(stderr, "%s\n", limiter.status().ToString().c_str());
    return 1;
  }
  std::ofstream out(out_path, std::ios::app);
  auto next_call = std::chrono::steady_clock::now();
  auto next_report = next_call + std::chrono::milliseconds(100);
  long admitted = 0;
  for (;;) {
    if (demand_changed.exchange(false)) std::ifstream(out_path + ".demand") >> demand;
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_report) {
      out << UnixMs() << ' ' << admitted << ' ' << (*limiter)->local_rate() << std::endl;
      admitted = 0;
      next_report += std::chrono::milliseconds(100);
    }
    if (now >= next_call) {
      admitted += (*limiter)->TryTake(Clock::Real().Now()) ? 1 : 0;
      next_call += std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / demand));
    }
    std::this_thread::sleep_until(std::min(next_call, next_report));
  }
}
