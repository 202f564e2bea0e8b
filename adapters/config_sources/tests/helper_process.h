// A helper program in a process of its own, for the tests that need a
// fleet or a SIGKILL: a registered replica (register_helper_main.cc), an
// instance following etcd (breaker_follower_main.cc). It dies with the
// test: killed by the destructor, and by the kernel if the test process
// dies first.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace stormguard::config_sources::testkit {

class HelperProcess {
 public:
  explicit HelperProcess(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);  // the test died before prctl
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~HelperProcess() { Kill(); }
  HelperProcess(const HelperProcess&) = delete;
  HelperProcess& operator=(const HelperProcess&) = delete;

  bool started() const { return pid_ > 0; }
  // SIGKILL: no clean exit (a registered replica's lease runs out).
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

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
