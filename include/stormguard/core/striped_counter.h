// stormguard/core/striped_counter.h: counters that many threads bump without
// fighting over one cache line.
//
// A hot atomic shared by every thread bounces its cache line between cores,
// so two threads get less done than one. A StripedCounter keeps one padded
// cell per stripe; each thread writes the stripe picked by ThreadStripe(),
// and readers add the stripes up.
//
//   StripedCounter active(ResolveStripes(0));   // one stripe per hardware thread
//   active.Add(1);                               // wait-free, no shared line
//   std::int64_t now_active = active.Sum();      // sums every stripe
//
// Thread safety: Add and Sum may run concurrently from any thread. Sum is
// not a snapshot: additions racing with it may or may not be counted, but
// every completed Add is. A value added on one thread and subtracted on
// another nets out in Sum (a single cell may go negative).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace stormguard {

inline constexpr std::size_t kCacheLineSize = 64;

// The most stripes ResolveStripes() picks on its own, and the most it accepts.
inline constexpr int kAutoStripeLimit = 16;
inline constexpr int kMaxStripes = 64;

namespace internal {
std::size_t NextThreadStripe() noexcept;
}  // namespace internal

// A number fixed for the calling thread's lifetime. Threads get consecutive
// numbers in the order they first ask, so k threads started together land
// on k different stripes of any power-of-two stripe count >= k.
inline std::size_t ThreadStripe() noexcept {
  thread_local const std::size_t stripe = internal::NextThreadStripe();
  return stripe;
}

// `requested` rounded up to a power of two; 0 means one stripe per hardware
// thread, at most kAutoStripeLimit. Always in [1, kMaxStripes].
int ResolveStripes(int requested) noexcept;

class StripedCounter {
 public:
  // `stripes` goes through ResolveStripes().
  explicit StripedCounter(int stripes = 0);

  void Add(std::int64_t delta) noexcept {
    cells_[ThreadStripe() & mask_].value.fetch_add(delta, std::memory_order_seq_cst);
  }
  std::int64_t Sum() const noexcept;
  int stripes() const noexcept { return static_cast<int>(mask_ + 1); }

 private:
  struct alignas(kCacheLineSize) Cell {
    std::atomic<std::int64_t> value{0};
  };
  std::unique_ptr<Cell[]> cells_;
  std::size_t mask_;
};

}  // namespace stormguard
