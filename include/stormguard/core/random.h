// stormguard/core/random.h: a small, fast, seedable random source.
//
// Jitter, hedging and the simulator draw from a Random they are handed, so a
// seed fixes every "random" decision: the same seed gives the same waits.
//
//   stormguard::Random rng(42);
//   Duration w = rng.UniformDuration(Duration::zero(), 100ms);  // [0, 100ms]
//
// The generator is xoshiro256** seeded through splitmix64. Thread safety: not
// thread-safe; give each thread (or each call) its own Random. A production
// driver uses ThreadLocalRandom(), seeded once per thread from the OS.
#pragma once

#include <cstdint>

#include "stormguard/core/time.h"

namespace stormguard {

class Random {
 public:
  explicit Random(std::uint64_t seed) noexcept;

  std::uint64_t NextU64() noexcept;
  // Uniform in [0, bound); 0 when bound == 0. Unbiased (Lemire's method).
  std::uint64_t Below(std::uint64_t bound) noexcept;
  // Uniform in [lo, hi], inclusive; lo when hi <= lo.
  std::int64_t UniformInt(std::int64_t lo, std::int64_t hi) noexcept;
  // Uniform in [0, 1).
  double UniformDouble() noexcept;
  // Uniform in [lo, hi], inclusive, at nanosecond resolution.
  Duration UniformDuration(Duration lo, Duration hi) noexcept;
  // Exponentially distributed with the given mean (Poisson inter-arrivals).
  Duration Exponential(Duration mean) noexcept;

 private:
  std::uint64_t s_[4];
};

// A per-thread Random seeded from std::random_device, for production drivers.
Random& ThreadLocalRandom() noexcept;

}  // namespace stormguard
