// sim/chain_sim.h (private to the simulator): the event-driven model behind
// RunChain. chain.cc holds the service side (arrivals, workers, queues,
// answers), chain_hop.cc the caller side (each node's retry loop, following
// the blocking driver's protocol step by step).
//
// Calls live in a vector and are named by index plus a generation that is
// bumped when the slot is freed, so an event or an answer meant for a call
// that is gone is recognised and dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "stormguard/retry/retry_session.h"
#include "stormguard/sim/chain.h"
#include "stormguard/sim/engine.h"

namespace stormguard::sim::chain_internal {

inline constexpr std::uint32_t kNone = 0xffffffffu;

enum EventKind : std::uint32_t { kArrival, kBurst, kWorkDone, kTimeout, kTimeoutCheck, kRetryWake, kPatience, kPump };
enum WorkOutcome : std::uint32_t { kWorkOk, kWorkFailed, kWorkHung };

inline std::uint64_t Pack(std::uint32_t gen, std::uint32_t n) noexcept {
  return (static_cast<std::uint64_t>(gen) << 32) | n;
}
inline std::uint32_t GenOf(std::uint64_t b) noexcept { return static_cast<std::uint32_t>(b >> 32); }
inline std::uint32_t LowOf(std::uint64_t b) noexcept { return static_cast<std::uint32_t>(b); }

// One request being served by one node, and (above the leaf) the retry
// loop of its own downstream call.
struct Call {
  std::uint32_t gen = 0;
  std::uint16_t node = 0;
  bool flagged = false;  // serving a retry (or part of one): the retry flag
  bool waiting = false;  // client requests only: the client still waits
  bool holds_worker = false;
  bool downstream_gave_up = false;
  bool breaker_permit = false;  // the attempt in flight holds a breaker permission
  bool hung = false;            // will never answer
  std::uint32_t parent = kNone, parent_gen = 0;
  std::uint32_t child = kNone, child_gen = 0;  // the attempt in flight
  std::uint32_t attempt = 0;
  Deadline deadline;       // as received
  Deadline call_deadline;  // for this node's own downstream call
  TimePoint arrived;
  TimePoint sent;        // when the attempt in flight went out
  RetrySession session;  // this node's retries of its downstream call
};

struct NodeState {
  std::optional<Engine::Lane> work;  // made on first use: a fixed latency keeps completions in order
  int busy = 0;
  std::deque<std::pair<std::uint32_t, std::uint32_t>> queue;  // (call, gen)
};

// A per-attempt timeout that fires after its attempt was answered does
// nothing; most never matter. A hop's timeouts are due in the order they
// were set (one fixed timeout), so they wait in a FIFO behind a single
// engine event, and the ones whose attempt already ended are dropped
// without ever becoming events.
struct PendingTimeout {
  TimePoint at;
  std::uint32_t call, gen, attempt;
};

struct HopState {
  RetryPolicy policy;
  CallContext scratch;  // reused for every Decide(): no allocation per attempt
  std::deque<PendingTimeout> timeouts;
  bool armed = false;                  // a kTimeoutCheck event is pending
  std::optional<Engine::Lane> checks;  // kTimeoutCheck events come in time order too
};

class ChainSim final : public Actor {
 public:
  explicit ChainSim(const ChainSpec& spec);
  ChainResult Run();
  void OnEvent(const SimEvent& e) override;

 private:
  TimePoint now() const noexcept { return engine_.now(); }
  Duration elapsed() const noexcept { return engine_.elapsed(); }
  void InstallProgress();
  std::uint32_t Alloc();
  void Free(std::uint32_t idx);

  // chain.cc: the service side.
  void ScheduleNextArrival();
  void NewClientRequest();
  int Capacity(std::uint32_t node) const;
  void Admit(std::uint32_t idx);
  void Reject(std::uint32_t idx, Status status);
  bool Draw(double p);
  void Start(std::uint32_t idx);
  void OnWorkDone(std::uint32_t idx, std::uint32_t gen, std::uint32_t out);
  void ReleaseWorker(std::uint32_t idx);
  void Finish(std::uint32_t idx, Status status);
  void Pump(std::uint32_t node);
  void Respond(std::uint32_t idx, Status status);
  void OnPatience(std::uint32_t idx, std::uint32_t gen);

  // chain_hop.cc: the retry loop of node idx's downstream call.
  void StartLoop(std::uint32_t idx);
  void SendAttempt(std::uint32_t idx);
  void SetTimeout(std::uint16_t hop, PendingTimeout t);
  void ArmTimeouts(std::uint16_t hop);
  void OnTimeoutCheck(std::uint16_t hop);
  bool AttemptInFlight(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt) const;
  void OnTimeout(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt);
  void OnRetryWake(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt);
  void OnAttemptEnd(std::uint32_t idx, const Status& status);
  void NoteBudgetRefusal(std::uint16_t hop);

  const ChainSpec& spec_;
  Engine engine_;
  // Arrivals draw from their own stream, so runs that differ only in their
  // policies see exactly the same clients.
  Random arrivals_rng_;
  // Indices, not pointers, cross events: Alloc() may move the vector, so no
  // reference to a Call is held across a call that can allocate one.
  std::vector<Call> calls_;
  std::vector<std::uint32_t> free_;
  std::vector<NodeState> nodes_;
  std::vector<HopState> hops_;
  ChainResult r_;
};

}  // namespace stormguard::sim::chain_internal
