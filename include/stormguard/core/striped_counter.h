// stormguard/core/striped_counter.h: counters that many threads bump without
// fighting over one cache line.
//
// A hot atomic shared by every thread bounces its cache line between cores,
// so two threads get less done than one. A StripedCounter keeps one padded
// cell per stripe; each thread writes the stripe picked by ThreadStripe(),
// and readers add the stripes up. A thread that finds another thread
// updating its cell at the same moment moves to another stripe (as Java's
// LongAdder does), so busy threads spread out over the stripes by themselves.
//
//   StripedCounter active(ResolveStripes(0));   // one stripe per hardware thread
//   active.Add(1);                               // lock-free, normally uncontended
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
// Constant-initialised and filled on first use: a thread_local with a
// dynamic initialiser costs a guard check and a call on every access, and
// every bulkhead and rate limiter call asks for the stripe.
inline constexpr std::size_t kNoStripe = ~std::size_t{0};
inline std::size_t& ThreadStripeSlot() noexcept {
  thread_local std::size_t stripe = kNoStripe;
  if (stripe == kNoStripe) [[unlikely]]
    stripe = NextThreadStripe();
  return stripe;
}
}  // namespace internal

// The calling thread's stripe number (use it modulo a power-of-two stripe
// count). Threads start on consecutive numbers, so k threads started
// together use k different stripes; MoveThreadStripe() changes it.
inline std::size_t ThreadStripe() noexcept { return internal::ThreadStripeSlot(); }

// Sends the calling thread to another, pseudo-random stripe.
void MoveThreadStripe() noexcept;

// cell += delta. When another thread updates the same cell at that moment
// (the CAS fails), the caller moves to another stripe for its next add.
template <class T>
void StripedAdd(std::atomic<T>& cell, T delta) noexcept {
  T old = cell.load(std::memory_order_relaxed);
  if (cell.compare_exchange_strong(old, static_cast<T>(old + delta), std::memory_order_seq_cst,
                                   std::memory_order_relaxed)) {
    return;
  }
  MoveThreadStripe();
  cell.fetch_add(delta, std::memory_order_seq_cst);
}

// `requested` rounded up to a power of two; 0 means one stripe per hardware
// thread, at most kAutoStripeLimit. Always in [1, kMaxStripes].
int ResolveStripes(int requested) noexcept;

// Stripes for a capacity of `units` (slots, tokens) split between them.
// `requested` as in ResolveStripes(), then halved until every stripe holds
// at least `min_units_per_stripe` (0 = auto) or 1 unit (explicit). A small
// capacity therefore stays one exact stripe.
int ResolveCapacityStripes(int requested, std::int64_t units, std::int64_t min_units_per_stripe) noexcept;

class StripedCounter {
 public:
  // `stripes` goes through ResolveStripes().
  explicit StripedCounter(int stripes = 0);

  void Add(std::int64_t delta) noexcept { StripedAdd(cells_[ThreadStripe() & mask_].value, delta); }
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
