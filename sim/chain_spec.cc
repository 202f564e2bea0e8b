#include <cmath>

#include "stormguard/core/validation.h"
#include "stormguard/sim/chain.h"

namespace stormguard::sim {
namespace {

constexpr double kMinRate = 1e-6;  // one arrival in 11.6 days

std::vector<std::string> ValidateService(const ServiceSpec& s) {
  Validator v;
  v.Check(s.concurrency >= 0, "concurrency", "must not be negative");
  v.Check(s.queue_limit >= 0, "queue_limit", "must not be negative");
  v.Check(s.error_rate >= 0 && s.error_rate <= 1, "error_rate", "must be in [0, 1]");
  v.Check(s.hang_rate >= 0 && s.hang_rate <= 1, "hang_rate", "must be in [0, 1]");
  v.Check(s.latency.a >= Duration::zero() && s.latency.b >= Duration::zero(), "latency", "must not be negative");
  for (const CapacityDrop& d : s.capacity_drops) {
    v.Check(d.factor >= 0 && d.factor <= 1, "capacity_drops.factor", "must be in [0, 1]");
    v.Check(d.window.from <= d.window.to, "capacity_drops.window", "must not end before it starts");
  }
  return std::move(v).errors();
}

}  // namespace

std::vector<std::string> ChainSpec::Validate() const {
  Validator v;
  v.Check(!services.empty(), "services", "must name at least one service");
  v.Check(services.size() < 0xffff, "services", "too many");
  v.Check(hops.size() + 1 == services.size(), "hops", "must have one hop per service but the last");
  for (std::size_t i = 0; i < services.size(); ++i) {
    v.Nest("services[" + std::to_string(i) + "]", ValidateService(services[i]));
  }
  for (std::size_t i = 0; i < hops.size(); ++i) {
    v.Nest("hops[" + std::to_string(i) + "].retry", hops[i].retry.Validate());
  }
  v.Check(load.burst >= 0, "load.burst", "must not be negative");
  // 1 / rate becomes the gap between arrivals: it must be a Duration, and
  // not zero (an infinite rate would never leave its first instant).
  v.Check(load.rate == 0 || (std::isfinite(load.rate) && load.rate >= kMinRate), "load.rate",
          "must be 0 or a finite number of at least 1e-6 per second");
  v.Check(load.duration >= Duration::zero(), "load.duration", "must not be negative");
  v.Check(load.deadline > Duration::zero(), "load.deadline", "must be positive");
  v.Check(load.patience > Duration::zero(), "load.patience", "must be positive");
  v.Check(bucket > Duration::zero(), "bucket", "must be positive");
  return std::move(v).errors();
}

double ChainResult::amplification() const noexcept {
  if (offered == 0 || nodes.empty()) return 0.0;
  return static_cast<double>(nodes.back().arrivals) / static_cast<double>(offered);
}

double ChainResult::success_rate() const noexcept {
  return offered == 0 ? 0.0 : static_cast<double>(succeeded) / static_cast<double>(offered);
}

}  // namespace stormguard::sim
