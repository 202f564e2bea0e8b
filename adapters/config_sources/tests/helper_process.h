// A helper program in a process of its own, for the tests that need a
// fleet or a SIGKILL: a registered replica (register_helper_main.cc), an
// instance following etcd (breaker_follower_main.cc). It dies with the
// test: killed by the destructor, and by the kernel if the test process
// dies first (testkit/child_process.h).
#pragma once

#include <string>
#include <vector>

#include "testkit/child_process.h"

namespace stormguard::config_sources::testkit {

class HelperProcess {
 public:
  explicit HelperProcess(std::vector<std::string> args) : pid_(stormguard::testkit::SpawnTiedChild(std::move(args))) {}
  ~HelperProcess() { Kill(); }
  HelperProcess(const HelperProcess&) = delete;
  HelperProcess& operator=(const HelperProcess&) = delete;

  bool started() const { return pid_ > 0; }
  // SIGKILL: no clean exit (a registered replica's lease runs out).
  void Kill() { stormguard::testkit::KillChild(pid_); }

 private:
  pid_t pid_ = -1;
};

// A registered replica that only waits, until it is killed.
class ReplicaProcess : public HelperProcess {
 public:
  ReplicaProcess(const std::string& endpoint, const std::string& prefix, const std::string& address, int ttl_seconds)
      : HelperProcess({STORMGUARD_REGISTER_HELPER_PATH, endpoint, prefix, address, std::to_string(ttl_seconds)}) {}
};

}  // namespace stormguard::config_sources::testkit
