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

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace stormguard::testkit {

// Whether nothing is bound to `port` on loopback now (a bind without
// SO_REUSEADDR fails even for a connection's local port or TIME_WAIT).
inline bool LoopbackPortIsFree(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return free;
}

// A free port from below the kernel's ephemeral range: an outgoing
// connection never takes one of those, so the port stays free until the
// server binds it, and again when a test restarts that server. (A kernel
// pick for port 0 comes from the ephemeral range: under a busy test run a
// connection could take it first, and the server failed to start.) The
// pick is random so that tests running in parallel seldom meet.
inline int FreeLoopbackPort() {
  int low = 32768, high = 60999;
  if (std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(f, "%d %d", &low, &high) != 2) low = 32768;
    std::fclose(f);
  }
  constexpr int kFirst = 10000;
  if (low > kFirst + 1000) {
    static std::mt19937 pick(std::random_device{}());
    std::uniform_int_distribution<int> port(kFirst, low - 1);
    for (int i = 0; i < 100; ++i) {
      const int candidate = port(pick);
      if (LoopbackPortIsFree(candidate)) return candidate;
    }
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);  // no room below: the kernel's pick
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
