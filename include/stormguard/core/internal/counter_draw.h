// stormguard/core/internal/counter_draw.h: uniform draws from a seed and a
// draw number, for policies shared by every thread (chaos, the adaptive
// throttle): one relaxed counter instead of a generator behind a lock, and
// a seed fixes the whole sequence.
#pragma once

#include <cstdint>
#include <random>

namespace stormguard::core_internal {

inline std::uint64_t SplitMix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Draw `n` of the sequence `seed`: uniform in [0, 1).
inline double UniformDraw(std::uint64_t seed, std::uint64_t n) noexcept {
  return static_cast<double>(SplitMix64(seed + n * 0x9E3779B97F4A7C15ULL) >> 11) * 0x1.0p-53;
}

// `seed`, or one from the OS for 0.
inline std::uint64_t SeedOrRandom(std::uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) | rd();
}

}  // namespace stormguard::core_internal
