#include "demo/fault_schedule.h"

#include <algorithm>

namespace stormguard::demo {

bool FaultSchedule::InOutage(std::string_view phase) const noexcept {
  return std::find(outage_phases_.begin(), outage_phases_.end(), phase) != outage_phases_.end();
}

double FaultSchedule::Uniform() {
  std::lock_guard lock(mu_);
  return rng_.UniformDouble();
}

Fault FaultSchedule::Draw() {
  const double u = Uniform();
  if (u < rates_.error) return Fault::kError;
  if (u < rates_.error + rates_.slow) return Fault::kSlow;
  return Fault::kNone;
}

Fault FaultSchedule::DrawGray(std::string_view phase) {
  if (std::find(gray_.phases.begin(), gray_.phases.end(), phase) == gray_.phases.end()) return Fault::kNone;
  if (Uniform() >= gray_.share) return Fault::kNone;
  return gray_.mode == GrayMode::kSlow ? Fault::kSlow : Fault::kError;
}

bool FaultSchedule::DrawLostResponse() { return Uniform() < rates_.lost_response; }

}  // namespace stormguard::demo
