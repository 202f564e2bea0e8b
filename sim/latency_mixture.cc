#include "stormguard/sim/latency_mixture.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"
#include "stormguard/sim/distribution.h"

namespace stormguard::sim {
namespace {

Duration FromNanos(double ns) noexcept {
  if (!(ns > 0)) return Duration::zero();
  return ns >= 9e18 ? Duration::max() : Duration(static_cast<Duration::rep>(ns));
}

Duration Pareto(Random& rng, Duration scale, double alpha) noexcept {
  const double u = 1.0 - rng.UniformDouble();  // (0, 1]
  return FromNanos(static_cast<double>(scale.count()) * std::pow(u, -1.0 / alpha));
}

}  // namespace

std::string_view TailShapeName(TailShape s) noexcept { return s == TailShape::kPareto ? "pareto" : "exponential"; }

LatencyMixture LatencyMixture::TailAtScale() noexcept { return {.stall_share = 0.0001}; }

Duration LatencyMixture::Sample(Random& rng) const noexcept {
  const double pick = rng.UniformDouble();
  Duration d;
  if (pick < stall_share) {
    d = rng.Exponential(stall_mean);
  } else if (pick < stall_share + tail_share) {
    d = tail == TailShape::kPareto ? Pareto(rng, tail_scale, tail_alpha) : rng.Exponential(tail_scale);
  } else {
    d = Latency::Normal(body_mean, body_sd).Sample(rng);
  }
  return std::clamp(d, min, max);
}

std::vector<std::string> LatencyMixture::Validate() const {
  Validator v;
  v.Check(body_mean > Duration::zero(), "body_mean", "must be positive");
  v.Check(body_sd >= Duration::zero(), "body_sd", "must not be negative");
  v.CheckRange(tail_share, "tail_share", {0.0, 1.0});
  v.CheckRange(stall_share, "stall_share", {0.0, 1.0});
  if (std::isfinite(tail_share) && std::isfinite(stall_share)) {
    v.Check(tail_share + stall_share <= 1.0, "tail_share", "plus stall_share must be at most 1");
  }
  v.Check(tail_scale > Duration::zero(), "tail_scale", "must be positive");
  v.CheckRange(tail_alpha, "tail_alpha", {0.1, 100.0});
  v.Check(stall_mean > Duration::zero(), "stall_mean", "must be positive");
  v.Check(min > Duration::zero(), "min", "must be positive");
  v.Check(max >= min, "max", "must be at least min");
  v.Check(max <= std::chrono::hours(1), "max", "must be at most 1h");
  return std::move(v).errors();
}

}  // namespace stormguard::sim
