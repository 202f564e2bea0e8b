// stormguard/fleet/outlier_detection.h: when a replica set stops sending
// calls to one of its endpoints, and when it takes it back.
//
// A replica can fail while its health check stays green: it times out or
// fails part of its calls (a gray failure). Outlier detection watches the
// answers the client itself gets and ejects an endpoint that
//   - fails `consecutive_failures` calls in a row, or
//   - over one `interval`, succeeds noticeably less often than the rest of
//     the set: below mean - success_rate_stdev_factor x stdev of the
//     endpoints that served at least success_rate_request_volume calls,
//     when at least success_rate_minimum_hosts did.
// An ejected endpoint gets no calls for base_ejection_time x (times it was
// ejected), at most max_ejection_time, then is readmitted; each interval it
// stays in, its count of ejections drops by one. At most
// max_ejection_percent of the set is out at once (an ejection that would
// pass it waits), so a fleet-wide problem never empties the set. Defaults
// are Envoy's.
//
// What counts as a failure: an attempt that timed out, could not connect,
// or was answered 5xx / UNAVAILABLE-like (OutcomeClass kTransient,
// kOverloaded, kAmbiguous, kDeadlineExceeded). A 4xx is the caller's
// mistake, not the replica's; a cancelled attempt (a hedge that lost) says
// nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/endpoint_state.h"
#include "stormguard/core/outcome.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct OutlierDetectionOptions {
  int consecutive_failures = 5;  // 0: off
  Duration interval = std::chrono::seconds(10);
  Duration base_ejection_time = std::chrono::seconds(30);
  Duration max_ejection_time = std::chrono::seconds(300);
  double max_ejection_percent = 10.0;      // [0, 100]; at least one endpoint may go
  double success_rate_stdev_factor = 1.9;  // 0: success-rate ejection off
  int success_rate_minimum_hosts = 5;      // endpoints with enough volume needed to judge
  int success_rate_request_volume = 100;   // calls in one interval to be judged

  std::vector<std::string> Validate() const;
};

// Whether an attempt's outcome counts against the endpoint.
constexpr bool CountsAsReplicaFailure(OutcomeClass c) noexcept {
  return c == OutcomeClass::kTransient || c == OutcomeClass::kOverloaded || c == OutcomeClass::kAmbiguous ||
         c == OutcomeClass::kDeadlineExceeded;
}

}  // namespace stormguard
