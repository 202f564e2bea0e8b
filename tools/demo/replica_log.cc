#include "demo/replica_log.h"

#include "demo/ledger_query.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {

void ReplicaLog::OnEvent(const Event& event) noexcept {
  if (event.kind == EventKind::kStateChanged && event.policy == PolicyId::kOutlierDetection) {
    std::lock_guard lock(mu_);
    if (changes_.size() < kCapacity) {  // reserved: no allocation of the vector here
      changes_.push_back({http::UnixNowMs(), std::string(event.endpoint), static_cast<EndpointState>(event.to_state)});
    }
  }
  next_.OnEvent(event);
}

std::vector<ReplicaChange> ReplicaLog::Changes() const {
  std::lock_guard lock(mu_);
  return changes_;
}

nlohmann::json ToJson(const std::vector<ReplicaChange>& changes) {
  nlohmann::json j = nlohmann::json::array();
  for (const ReplicaChange& c : changes) j.push_back({c.unix_ms, c.endpoint, EndpointStateName(c.to)});
  return j;
}

std::vector<ReplicaChange> ReplicaChangesFromJson(const nlohmann::json& j) {
  std::vector<ReplicaChange> out;
  for (const nlohmann::json& c : j) {
    const std::string state = c.at(2).get<std::string>();
    EndpointState to = EndpointState::kAdmitted;
    for (EndpointState s : {EndpointState::kEjectedConsecutiveFailures, EndpointState::kEjectedSuccessRate}) {
      if (state == EndpointStateName(s)) to = s;
    }
    if (to == EndpointState::kAdmitted && state != EndpointStateName(to)) {
      throw std::invalid_argument("unknown endpoint state '" + state + "'");
    }
    out.push_back({c.at(0).get<std::int64_t>(), c.at(1).get<std::string>(), to});
  }
  return out;
}

Result<std::vector<ReplicaChange>> ReadReplicaLog(int port) {
  Result<nlohmann::json> j = ReadAdminJson(port, "/admin/replicas");
  if (!j.ok()) return j.status();
  try {
    return ReplicaChangesFromJson(*j);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("B's replica log is malformed: ") + e.what());
  }
}

}  // namespace stormguard::demo
