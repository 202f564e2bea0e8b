#include "global_rate_limiter_metrics.h"

#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/metrics/metric_family.h"

namespace stormguard::global_limit_internal {
namespace {

Status Register() {
  // Indexed by GlobalLimitState and GlobalLimitFault values.
  const std::vector<std::string> states = {"starting", "leased", "fallback"};
  const std::vector<std::string> faults = {"refresh_failed", "auth_refused", "invalid_lease", "lease_expired"};
  return RegisterMetricFamilies({
      {.name = "stormguard_global_rate_limit_state",
       .help = "1 for the fleet-wide rate limit's current state (lease, fallback), 0 for the others.",
       .type = MetricType::kStateGauge,
       .policy = PolicyId::kGlobalRateLimit,
       .kinds = {EventKind::kStateReported, EventKind::kStateChanged},
       .state_label = "state",
       .state_names = states},
      {.name = "stormguard_global_rate_limit_faults_total",
       .help = "Faults of the fleet-wide rate limit's lease: failed refreshes, refused credentials, expiries.",
       .policy = PolicyId::kGlobalRateLimit,
       .kinds = {EventKind::kGaveUp},
       .state_label = "fault",
       .state_names = faults},
  });
}

}  // namespace

Status RegisterGlobalRateLimitMetrics() {
  static const Status registered = Register();
  return registered;
}

}  // namespace stormguard::global_limit_internal
