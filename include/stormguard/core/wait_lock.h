// stormguard/core/wait_lock.h: a mutex in one integer, inline on its fast path.
//
//   WaitLock<std::uint8_t> mu;              // one byte, for a per-call state
//   std::lock_guard lock(mu);
//
// Uncontended, lock() is one compare-exchange and unlock() one exchange,
// both inlined: about half what std::mutex costs through pthread's calls,
// on paths taken once or twice per call. Contended, a waiter sleeps in
// std::atomic::wait (a futex on Linux) rather than spinning, so a holder
// that is preempted, or that makes a system call under the lock, costs the
// others no CPU. Not recursive; no owner checks.
//
// T: std::uint8_t (where bytes matter: a waiting call holds it) or
// std::uint32_t (the width a futex waits on directly).
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace stormguard {

template <class T = std::uint32_t>
class WaitLock {
  static_assert(std::is_unsigned_v<T>);

 public:
  WaitLock() noexcept = default;
  WaitLock(const WaitLock&) = delete;
  WaitLock& operator=(const WaitLock&) = delete;

  void lock() noexcept {
    T seen = kFree;
    if (state_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire, std::memory_order_relaxed)) {
      return;
    }
    LockContended(seen);
  }
  bool try_lock() noexcept {
    T seen = kFree;
    return state_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void unlock() noexcept {
    if (state_.exchange(kFree, std::memory_order_release) == kWaiters) state_.notify_one();
  }

 private:
  static constexpr T kFree = 0, kLocked = 1, kWaiters = 2;  // kWaiters: locked, and someone may sleep

  // Marks the lock as waited for, so the unlock that frees it wakes one
  // sleeper; a thread that takes it this way keeps the mark (it cannot know
  // whether others still sleep), which costs at most one spare wake.
  void LockContended(T seen) noexcept {
    if (seen != kWaiters) seen = state_.exchange(kWaiters, std::memory_order_acquire);
    while (seen != kFree) {
      state_.wait(kWaiters, std::memory_order_relaxed);
      seen = state_.exchange(kWaiters, std::memory_order_acquire);
    }
  }

  std::atomic<T> state_{kFree};
};

}  // namespace stormguard
