// Each thread's sampling phase. Threads take turns in the order they draw:
// within each block of kAttemptSampleEvery consecutive threads the phases
// are a permutation of 0..15 (n * 5 is a bijection mod 16), shifted by a
// seeded random offset per block. So sixteen threads that each make the
// same number of fast attempts time exactly 1 in 16 of them between them,
// however few each makes, and any number of threads times 1 in 16 on
// average.
#include <atomic>

#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/core/random.h"

namespace stormguard::core_internal {
namespace {

std::atomic<std::uint64_t> phase_seed{0x5eed'a77e'3a9d'0001};
std::atomic<std::uint64_t> threads_drawn{0};

}  // namespace

std::uint32_t DrawAttemptPhase() noexcept {
  const std::uint64_t n = threads_drawn.fetch_add(1, std::memory_order_relaxed);
  const std::uint64_t block = n / kAttemptSampleEvery;
  const std::uint64_t offset = Random(phase_seed.load(std::memory_order_relaxed) + block).NextU64();
  return static_cast<std::uint32_t>((n * 5 + offset) % kAttemptSampleEvery);
}

void SeedAttemptSampling(std::uint64_t seed) noexcept {
  phase_seed.store(seed, std::memory_order_relaxed);
  threads_drawn.store(0, std::memory_order_relaxed);
}

}  // namespace stormguard::core_internal
