#include "stormguard/sim/distribution.h"

#include <cmath>
#include <numbers>

namespace stormguard::sim {

Duration Latency::Sample(Random& rng) const noexcept {
  switch (kind) {
    case Kind::kFixed: return a;
    case Kind::kUniform: return rng.UniformDuration(a, b);
    case Kind::kExponential: return rng.Exponential(a);
    case Kind::kNormal: {
      // Box-Muller; one of the pair is enough here.
      const double u1 = 1.0 - rng.UniformDouble();  // (0, 1]
      const double u2 = rng.UniformDouble();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      const double ns = static_cast<double>(a.count()) + z * static_cast<double>(b.count());
      return ns <= 0 ? Duration::zero() : Duration(static_cast<Duration::rep>(ns));
    }
  }
  return a;
}

Duration Latency::Mean() const noexcept { return kind == Kind::kUniform ? a + (b - a) / 2 : a; }

}  // namespace stormguard::sim
