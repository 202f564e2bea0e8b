#include "stormguard/sim/distribution.h"

#include <cmath>
#include <numbers>

namespace stormguard::sim {

namespace {

// A standard normal draw (Box-Muller; one of the pair is enough here).
double StandardNormal(Random& rng) noexcept {
  const double u1 = 1.0 - rng.UniformDouble();  // (0, 1]
  const double u2 = rng.UniformDouble();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

Duration FromNanos(double ns) noexcept {
  if (!(ns > 0)) return Duration::zero();
  return ns >= 9e18 ? Duration::max() : Duration(static_cast<Duration::rep>(ns));
}

}  // namespace

Duration Latency::Sample(Random& rng) const noexcept {
  switch (kind) {
    case Kind::kFixed: return a;
    case Kind::kUniform: return rng.UniformDuration(a, b);
    case Kind::kExponential: return rng.Exponential(a);
    case Kind::kNormal: {
      const double ns = static_cast<double>(a.count()) + StandardNormal(rng) * static_cast<double>(b.count());
      return ns <= 0 ? Duration::zero() : Duration(static_cast<Duration::rep>(ns));
    }
    case Kind::kLogNormal: return FromNanos(static_cast<double>(a.count()) * std::exp(sigma * StandardNormal(rng)));
  }
  return a;
}

Duration Latency::Mean() const noexcept {
  if (kind == Kind::kLogNormal) return FromNanos(static_cast<double>(a.count()) * std::exp(sigma * sigma / 2));
  return kind == Kind::kUniform ? a + (b - a) / 2 : a;
}

}  // namespace stormguard::sim
