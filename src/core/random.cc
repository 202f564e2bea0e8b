#include "stormguard/core/random.h"

#include <cmath>
#include <random>

namespace stormguard {
namespace {

std::uint64_t SplitMix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__extension__ typedef unsigned __int128 U128;  // GCC/Clang builtin

constexpr std::uint64_t Rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

}  // namespace

Random::Random(std::uint64_t seed) noexcept {
  for (auto& word : s_) word = SplitMix64(seed);
}

std::uint64_t Random::NextU64() noexcept {
  const std::uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

std::uint64_t Random::Below(std::uint64_t bound) noexcept {
  if (bound == 0) return 0;
  U128 m = static_cast<U128>(NextU64()) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<U128>(NextU64()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t Random::UniformInt(std::int64_t lo, std::int64_t hi) noexcept {
  if (hi <= lo) return lo;
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  const std::uint64_t offset = span == UINT64_MAX ? NextU64() : Below(span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

double Random::UniformDouble() noexcept { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

Duration Random::UniformDuration(Duration lo, Duration hi) noexcept {
  return Duration(UniformInt(lo.count(), hi.count()));
}

Duration Random::Exponential(Duration mean) noexcept {
  const double u = 1.0 - UniformDouble();  // (0, 1]
  return SaturatingScale(mean, -std::log(u));
}

Random& ThreadLocalRandom() noexcept {
  thread_local Random rng([] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }());
  return rng;
}

}  // namespace stormguard
