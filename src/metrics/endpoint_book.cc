#include "endpoint_book.h"

#include "stormguard/core/endpoint_state.h"

namespace stormguard::metrics_internal {

void EndpointBook::Record(const Event& e) noexcept {
  try {
    std::lock_guard lock(mu_);
    auto it = rows_.find(e.endpoint);
    if (it == rows_.end()) {
      const std::string_view key = rows_.size() < kMaxEndpointSeries ? e.endpoint : kOtherEndpoint;
      it = rows_.try_emplace(std::string(key)).first;
      it->second.endpoint = key;
    }
    Row& row = it->second;
    if (e.kind == EventKind::kAttemptEnded) {
      const auto outcome = static_cast<std::size_t>(e.outcome);
      if (outcome < row.attempts.size()) ++row.attempts[outcome];
      return;
    }
    const auto to = static_cast<EndpointState>(e.to_state);
    row.ejected = IsEjected(to);
    if (to == EndpointState::kEjectedConsecutiveFailures) ++row.consecutive_failure_ejections;
    if (to == EndpointState::kEjectedSuccessRate) ++row.success_rate_ejections;
  } catch (...) {  // out of memory: this event is not counted
  }
}

std::vector<EndpointBook::Row> EndpointBook::Rows() const {
  std::lock_guard lock(mu_);
  std::vector<Row> out;
  out.reserve(rows_.size());
  for (const auto& [endpoint, row] : rows_) out.push_back(row);
  return out;
}

}  // namespace stormguard::metrics_internal
