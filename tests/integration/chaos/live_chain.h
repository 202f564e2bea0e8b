// tests/integration/chaos/live_chain.h: the demo's services A -> B -> C in
// stormguard mode, as child processes on loopback, with the faults the chaos
// tests inject.
//
//   auto chain = LiveChain::Start(seed);        // C, B, A, each on a free port
//   chain->KillB();  chain->RestartB();         // kill -9, then a new B on B's port
//   chain->PauseC(); chain->ResumeC();          // SIGSTOP / SIGCONT
//   chain->SlowC(2s, 3s);                       // every answer 2 s, for 3 s
//   Result<BottomSnapshot> l = chain->SettledLedger();
//
// Every path stops every child: the destructor resumes a paused C, then
// stops and reaps A, B and C (SIGTERM, SIGKILL after a grace period). The
// services also die with this process (PR_SET_PDEATHSIG) and after their
// max lifetime. Start and restart from the test's main thread: a service
// dies with the thread that started it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "demo/bottom_ledger.h"
#include "demo/service_process.h"
#include "stormguard/core/result.h"

namespace stormguard::demo::chaos {

class LiveChain {
 public:
  static Result<std::unique_ptr<LiveChain>> Start(std::uint64_t seed);
  ~LiveChain();
  LiveChain(const LiveChain&) = delete;
  LiveChain& operator=(const LiveChain&) = delete;

  int entry_port() const noexcept { return a_->port(); }
  // Every process this chain ever started, restarted ones included.
  const std::vector<pid_t>& pids() const noexcept { return pids_; }

  // kill -9 B and reap it; A's calls to B then find nobody listening.
  void KillB();
  // A new B on the killed one's port (A keeps calling that port).
  Status RestartB();
  void PauseC();
  void ResumeC();
  // C takes `delay` for every request arriving in the next `length`.
  Status SlowC(Duration delay, Duration length);
  // C's ledger once its last piece of work has finished.
  Result<BottomSnapshot> SettledLedger() const;
  // Stops A, B and C; idempotent.
  void Stop();

 private:
  LiveChain() = default;
  Result<std::unique_ptr<ServiceProcess>> StartService(const char* role, int downstream, int port = 0);

  std::uint64_t seed_ = 1;
  std::unique_ptr<ServiceProcess> c_, b_, a_;
  int b_port_ = 0;
  bool c_paused_ = false;
  std::vector<pid_t> pids_;
};

}  // namespace stormguard::demo::chaos
