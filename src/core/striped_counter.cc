#include "stormguard/core/striped_counter.h"

#include <algorithm>
#include <bit>
#include <thread>

namespace stormguard {

namespace internal {
std::size_t NextThreadStripe() noexcept {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace internal

void MoveThreadStripe() noexcept {
  // One xorshift step: two threads that collided walk off in different
  // directions, since their numbers differ.
  std::size_t& s = internal::ThreadStripeSlot();
  std::uint64_t x = s + 0x9E3779B97F4A7C15ull;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  s = static_cast<std::size_t>(x);
}

int ResolveStripes(int requested) noexcept {
  int n = requested;
  if (n <= 0) {
    const unsigned hw = std::thread::hardware_concurrency();
    n = std::min(static_cast<int>(std::max(hw, 1u)), kAutoStripeLimit);
  }
  n = std::min(n, kMaxStripes);
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(n)));
}

int ResolveCapacityStripes(int requested, std::int64_t units, std::int64_t min_units_per_stripe) noexcept {
  const std::int64_t min_units = requested > 0 ? 1 : std::max<std::int64_t>(min_units_per_stripe, 1);
  int n = ResolveStripes(requested);
  while (n > 1 && units / n < min_units) n /= 2;
  return n;
}

StripedCounter::StripedCounter(int stripes)
    : cells_(new Cell[static_cast<std::size_t>(ResolveStripes(stripes))]),
      mask_(static_cast<std::size_t>(ResolveStripes(stripes)) - 1) {}

std::int64_t StripedCounter::Sum() const noexcept {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i <= mask_; ++i) sum += cells_[i].value.load(std::memory_order_seq_cst);
  return sum;
}

}  // namespace stormguard
