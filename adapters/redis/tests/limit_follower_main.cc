// One instance of a fleet whose fleet-wide limit comes from its
// configuration in etcd: the process the global-limit reload test starts
// four of. It runs a Registry as a service would, with the shares in Redis
// (redis::LeaseStoresIn) and this instance's name, follows the key, and
// calls through destination "db"'s pipeline.
//
//   stormguard_limit_follower <etcd endpoint> <key> <redis host:port> <user> <password file> <instance> <demand/s>
//                             <out file>
//
// The password comes from a file, never from the command line others can
// read in /proc. It wants <demand> calls per second, evenly spaced, from
// the first configuration in force on; every 100 ms it appends
// "<unix ms> <calls admitted in those 100 ms>" to <out file>. It exits when
// its parent does (the test sets PR_SET_PDEATHSIG).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "stormguard/config/registry.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/reload_into.h"
#include "stormguard/redis/redis_lease_store.h"
#include "testkit/unix_ms.h"

using stormguard::testkit::UnixMs;

int main(int argc, char** argv) {
  namespace cs = stormguard::config_sources;
  using stormguard::CallContext;
  using stormguard::Status;
  if (argc != 9) {
    std::fprintf(stderr,
                 "usage: %s <etcd endpoint> <key> <redis host:port> <user> <password file> <instance> <demand/s> "
                 "<out file>\n",
                 argv[0]);
    return 2;
  }
  std::string password;
  std::getline(std::ifstream(argv[5]), password);
  stormguard::config::Registry registry({.on_reload =
                                             [](const stormguard::config::ReloadEvent& e) {
                                               for (const std::string& error : e.errors)
                                                 std::fprintf(stderr, "refused: %s\n", error.c_str());
                                             },
                                         .lease_stores = stormguard::redis::LeaseStoresIn({.address = argv[3],
                                                                                           .user = argv[4],
                                                                                           .password = password,
                                                                                           .prefix = "live"}),
                                         .instance_id = argv[6]});
  auto source = cs::EtcdSource::Start({.endpoint = argv[1], .key = argv[2]},
                                      cs::ReloadInto(registry, std::string("etcd:") + argv[2]));
  if (!source.ok()) {
    std::fprintf(stderr, "%s\n", source.status().ToString().c_str());
    return 1;
  }
  while (registry.Stats().version == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto spacing = std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / std::stod(argv[7])));
  std::ofstream out(argv[8], std::ios::app);
  auto next_call = std::chrono::steady_clock::now();
  auto next_report = next_call + std::chrono::milliseconds(100);
  long admitted = 0;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_report) {
      out << UnixMs() << ' ' << admitted << std::endl;
      admitted = 0;
      next_report += std::chrono::milliseconds(100);
    }
    if (now >= next_call) {
      CallContext ctx;
      admitted += registry.Get("db")->Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok() ? 1 : 0;
      next_call += spacing;
    }
    std::this_thread::sleep_until(std::min(next_call, next_report));
  }
}
