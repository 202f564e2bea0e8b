// tools/demo/replica_log.h: when B's replicas of C were ejected and readmitted.
//
// B (stormguard mode, --replicas) hears its ReplicaSet's outlier-detection
// events through the demo registry's listener; a ReplicaLog in front of the
// metrics keeps each ejection and readmission with its wall-clock time (a
// bounded log: a run has a handful) and forwards every event on. B serves
// the log at GET /admin/replicas; the runner reads it once the load is over.
//
//   ReplicaLog log(metrics);                      // the registry's listener
//   std::vector<ReplicaChange> c = log.Changes();  // oldest first
//   Result<std::vector<ReplicaChange>> r = ReadReplicaLog(b_port);
//
// Thread safety: OnEvent and Changes from any thread (a mutex held for a copy).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/endpoint_state.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"

namespace stormguard::demo {

struct ReplicaChange {
  std::int64_t unix_ms = 0;
  std::string endpoint;  // host:port
  EndpointState to = EndpointState::kAdmitted;

  friend bool operator==(const ReplicaChange&, const ReplicaChange&) = default;
};

class ReplicaLog final : public Listener {
 public:
  static constexpr std::size_t kCapacity = 256;  // later changes are dropped

  explicit ReplicaLog(Listener& next) : next_(next) { changes_.reserve(kCapacity); }

  void OnEvent(const Event& event) noexcept override;
  AttemptTiming attempt_timing() const noexcept override { return next_.attempt_timing(); }
  bool wants_attempt_started() const noexcept override { return next_.wants_attempt_started(); }
  SuccessTally* success_tally() noexcept override { return next_.success_tally(); }

  std::vector<ReplicaChange> Changes() const;

 private:
  Listener& next_;
  mutable std::mutex mu_;
  std::vector<ReplicaChange> changes_;
};

// [[unix_ms, "host:port", "admitted" | "consecutive_failures" | "success_rate"], ...]
nlohmann::json ToJson(const std::vector<ReplicaChange>& changes);
std::vector<ReplicaChange> ReplicaChangesFromJson(const nlohmann::json& j);  // throws on malformed input

// GET /admin/replicas of the service on `port` (B).
Result<std::vector<ReplicaChange>> ReadReplicaLog(int port);

}  // namespace stormguard::demo
