// A replica that registers itself and then only waits: the process the
// discovery tests SIGKILL to see it leave when its lease runs out.
//
//   stormguard_etcd_register_helper <etcd endpoint> <prefix> <address> <ttl seconds>
//
// It exits when its parent does (the test sets PR_SET_PDEATHSIG before
// exec), so it never outlives the test.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "stormguard/config_sources/etcd_registration.h"

int main(int argc, char** argv) {
  using stormguard::config_sources::EtcdRegistration;
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <etcd endpoint> <prefix> <address> <ttl seconds>\n", argv[0]);
    return 2;
  }
  auto registration =
      EtcdRegistration::Start({.etcd = {.endpoint = argv[1], .key = argv[2]},
                               .address = argv[3],
                               .ttl = std::chrono::seconds(std::stoi(argv[4]))},
                              [](const stormguard::Status& s) { std::fprintf(stderr, "%s\n", s.ToString().c_str()); });
  if (!registration.ok()) {
    std::fprintf(stderr, "%s\n", registration.status().ToString().c_str());
    return 1;
  }
  for (;;) ::pause();
}
