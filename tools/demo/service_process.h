// tools/demo/service_process.h: a demo service running as a child process.
//
//   auto c = ServiceProcess::Start(exe, {"--role", "C", "--mode", "naive"});
//   if (!c.ok()) return c.status();
//   use((*c)->port());
//   // the destructor stops it: SIGTERM, then SIGKILL after a grace period; reaped
//
// The child runs `exe demo-service args...`, so the demo needs nothing but
// its own binary. It gets PR_SET_PDEATHSIG(SIGKILL) before exec, so it dies
// with the thread that started it (start services from the main thread),
// even while stopped (SIGSTOP), which would hold a SIGTERM pending forever;
// it also stops itself after its max lifetime (see service.h). While an
// InterruptGuard lives, SIGINT/SIGTERM/SIGHUP stop and reap every running
// child before the demo itself dies of the signal.
//
// Thread safety: start and stop from one thread; the interrupt handler reads
// the registry of running children lock-free.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "stormguard/core/result.h"

namespace stormguard::demo {

class ServiceProcess {
 public:
  // Starts the child and waits (at most `ready_timeout`) for its "port N" line.
  static Result<std::unique_ptr<ServiceProcess>> Start(const std::string& exe, const std::vector<std::string>& args,
                                                       Duration ready_timeout = std::chrono::seconds(10));
  ~ServiceProcess() { Stop(); }
  ServiceProcess(const ServiceProcess&) = delete;
  ServiceProcess& operator=(const ServiceProcess&) = delete;

  pid_t pid() const noexcept { return pid_; }
  int port() const noexcept { return port_; }
  // Idempotent; returns once the child is reaped.
  void Stop();

 private:
  ServiceProcess(pid_t pid, int port) : pid_(pid), port_(port) {}
  pid_t pid_;
  int port_;
};

// Installs the interrupt handlers for its lifetime (restores the old ones).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

}  // namespace stormguard::demo
