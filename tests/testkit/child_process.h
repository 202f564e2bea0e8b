// tests/testkit/child_process.h: servers that integration tests start (etcd,
// redis-server) as child processes on loopback ports.
//
//   const int port = testkit::FreeLoopbackPort();
//   pid_t pid = testkit::SpawnTiedChild({"/usr/bin/redis-server", "--port", std::to_string(port)});
//   ...
//   testkit::KillChild(pid);
//
// A child dies with the test (PR_SET_PDEATHSIG), even one killed by a
// timeout: a server left behind would hold the test's output pipe open.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace stormguard::testkit {

// A port nobody listens on right now (the kernel's pick for port 0).
inline int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// Runs args[0] with `args`; the child is killed when the test process dies.
inline pid_t SpawnTiedChild(std::vector<std::string> args) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the test died before prctl
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// SIGKILL and reap; `pid` becomes -1 (nothing to kill).
inline void KillChild(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = -1;
}

}  // namespace stormguard::testkit
