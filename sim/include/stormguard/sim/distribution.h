// stormguard/sim/distribution.h: how long a simulated service takes.
//
//   sim::Latency fixed = sim::Latency::Fixed(10ms);
//   sim::Latency exp = sim::Latency::Exponential(10ms);     // M/M/c service times
//   sim::Latency net = sim::Latency::Normal(10ms, 2ms);     // truncated at zero
//   sim::Latency rpc = sim::Latency::LogNormal(5ms, 0.5);   // median 5ms, a long right tail
//   Duration d = exp.Sample(rng);
//
// Thread safety: a plain value; Sample() touches only the Random it is given.
#pragma once

#include "stormguard/core/random.h"
#include "stormguard/core/time.h"

namespace stormguard::sim {

struct Latency {
  enum class Kind { kFixed, kUniform, kExponential, kNormal, kLogNormal };
  Kind kind = Kind::kFixed;
  Duration a = Duration::zero();  // fixed value, lower bound, mean, median (lognormal)
  Duration b = Duration::zero();  // upper bound (uniform), standard deviation (normal)
  double sigma = 0;               // lognormal: standard deviation of the latency's logarithm

  static Latency Fixed(Duration d) noexcept { return {Kind::kFixed, d, Duration::zero()}; }
  static Latency Uniform(Duration lo, Duration hi) noexcept { return {Kind::kUniform, lo, hi}; }
  static Latency Exponential(Duration mean) noexcept { return {Kind::kExponential, mean, Duration::zero()}; }
  static Latency Normal(Duration mean, Duration sd) noexcept { return {Kind::kNormal, mean, sd}; }
  // Service times as RPCs show them: most near the median, a few far above.
  static Latency LogNormal(Duration median, double sigma) noexcept {
    return {Kind::kLogNormal, median, Duration::zero(), sigma};
  }

  Duration Sample(Random& rng) const noexcept;
  Duration Mean() const noexcept;
};

}  // namespace stormguard::sim
