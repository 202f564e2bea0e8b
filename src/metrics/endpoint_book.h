// The replicas of one MetricsListener instance (internal): per endpoint,
// its attempts by outcome, how often outlier detection ejected it (by why)
// and whether it is out now. The number of endpoints is
// bounded (kMaxEndpointSeries, the rest are counted as "_other"), so a
// fleet that churns through addresses cannot grow the scrape without end.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/events.h"

namespace stormguard::metrics_internal {

inline constexpr std::size_t kMaxEndpointSeries = 256;
inline constexpr std::string_view kOtherEndpoint = "_other";

// Ejections are rare; attempts are not, but a lookup under the lock is
// small next to a network call, and only replica sets report here.
class EndpointBook {
 public:
  struct Row {
    std::string endpoint;
    std::uint64_t consecutive_failure_ejections = 0;
    std::uint64_t success_rate_ejections = 0;
    bool ejected = false;
    std::array<std::uint64_t, kOutcomeClassCount> attempts{};  // by outcome
  };

  // A kStateChanged or kAttemptEnded event of PolicyId::kOutlierDetection.
  void Record(const Event& e) noexcept;
  std::vector<Row> Rows() const;  // by endpoint

 private:
  mutable std::mutex mu_;
  std::map<std::string, Row, std::less<>> rows_;
};

}  // namespace stormguard::metrics_internal
