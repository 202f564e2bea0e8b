// One instance of a fleet that follows its configuration in etcd and calls
// through it: the process the breaker-force test starts eight of.
//
//   stormguard_breaker_follower <etcd endpoint> <key> <destination> <out file>
//
// Every 2 ms it makes a call through the destination's pipeline (the call
// itself always succeeds) and appends a line to <out file> whenever the
// answer changes between admitted and refused: "admitted <unix ms>" or
// "refused <unix ms>". It starts once the first configuration is in force,
// and exits when its parent does (the test sets PR_SET_PDEATHSIG).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "stormguard/config/registry.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/reload_into.h"
#include "testkit/unix_ms.h"

using stormguard::testkit::UnixMs;

int main(int argc, char** argv) {
  namespace cs = stormguard::config_sources;
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <etcd endpoint> <key> <destination> <out file>\n", argv[0]);
    return 2;
  }
  stormguard::config::Registry registry({.on_reload = [](const stormguard::config::ReloadEvent& e) {
    for (const std::string& error : e.errors) std::fprintf(stderr, "refused: %s\n", error.c_str());
  }});
  auto source = cs::EtcdSource::Start({.endpoint = argv[1], .key = argv[2]},
                                      cs::ReloadInto(registry, std::string("etcd:") + argv[2]));
  if (!source.ok()) {
    std::fprintf(stderr, "%s\n", source.status().ToString().c_str());
    return 1;
  }
  while (registry.Stats().version == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::ofstream out(argv[4], std::ios::app);
  int last = -1;  // 0: admitted, 1: refused
  for (;;) {
    stormguard::CallContext ctx;
    const stormguard::Status s =
        registry.Get(argv[3])->Execute(ctx, [](stormguard::CallContext&) { return stormguard::Status::Ok(); });
    const int now = s.ok() ? 0 : 1;
    if (now != last) {
      out << (now == 0 ? "admitted " : "refused ") << UnixMs() << std::endl;
      last = now;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}
