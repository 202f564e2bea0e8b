// stormguard/core/stop_source_lease.h: stop sources that are reused, so
// cancelling per call allocates nothing once warm.
//
// std::stop_source allocates its shared state, and a call that gets its own
// (a timeout's attempt, a hedged call's primary) would allocate on every
// call. Two per-thread pools of sources that were never stopped avoid it.
//
// StopSourceLease, for a scope on one thread: it lends a source (with a
// token of its own) in place, from the calling thread's pool (up to 8 at
// once per thread, so nested leases reuse theirs), and takes it back when
// destroyed:
//
//   StopSourceLease lease;                  // the thread's pool, or a new source
//   ctx.stop.swap(lease.token());           // hand out its token: no refcount moves
//   ...                                     // a timer may call lease.source().request_stop()
//   ctx.stop.swap(lease.token());           // take it back before the lease ends
//
// PooledStop, for a call that may end on another thread (the asynchronous
// timeout): TakePooledStop() moves one out of the calling thread's pool (up
// to 16 kept per thread), and ReturnPooledStop() gives it to the pool of
// whichever thread returns it.
//
// A stopped source is never reused (it is released: whoever still holds a
// copy keeps it alive), nor one whose token was replaced by another state's
// token. Whoever got a token (or a copy of the source) must not keep it past
// the lease, or past the return: the source behind it may serve a later call.
// Thread safety: a lease belongs to the thread that created it and must be
// destroyed there; a PooledStop may be returned on any thread.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <stop_token>

#include "stormguard/core/internal/thread_cache.h"

namespace stormguard {

// A source and the token handed out for it; `id` is the state the token
// referred to when it was made (zero: none yet).
struct PooledStop {
  std::stop_source source{std::nostopstate};
  std::stop_token token;
  std::uintptr_t id = 0;

  // A new source (an allocation) and its token.
  static PooledStop Fresh();
  // Whether it may serve another call: never stopped, its own token back.
  bool Reusable() const noexcept {
    static_assert(sizeof(std::stop_token) == sizeof(std::uintptr_t), "a stop_token is one pointer to its state");
    std::uintptr_t state;  // which state the token refers to, without touching its reference count
    std::memcpy(&state, static_cast<const void*>(&token), sizeof state);
    return id != 0 && state == id && !source.stop_requested();
  }
};

// A never-stopped source from the calling thread's pool, or a new one.
PooledStop TakePooledStop();
// Keeps `stop` in the calling thread's pool when it is reusable and there is
// room; otherwise releases it.
void ReturnPooledStop(PooledStop&& stop) noexcept;

namespace core_internal {
// The slots a thread's leases borrow in place: a set bit in `free` is a
// slot no lease holds. A slot with id 0 has no source yet (or lost a
// stopped one) and is filled when lent.
struct LeasePool {
  static constexpr int kSlots = 8;  // nested leases per thread that reuse a source
  PooledStop slots[kSlots];
  std::uint32_t free = (1u << kSlots) - 1;
};
}  // namespace core_internal

// Inline (forced: GCC's size heuristics call both out of line): every call
// through a timeout passes here, and a call apiece would cost as much as the
// rest of the work.
class StopSourceLease {
 public:
  [[gnu::always_inline]] StopSourceLease() {
    core_internal::LeasePool* pool = core_internal::ThreadCache<core_internal::LeasePool>();
    if (pool == nullptr || pool->free == 0) [[unlikely]] {
      LendFromHeap();
      return;
    }
    const int slot = std::countr_zero(pool->free);
    lent_ = &pool->slots[slot];
    if (lent_->id == 0) [[unlikely]]
      *lent_ = PooledStop::Fresh();
    bit_ = 1u << slot;
    free_ = &pool->free;
    *free_ &= ~bit_;
  }
  [[gnu::always_inline]] ~StopSourceLease() {
    if (free_ == nullptr) [[unlikely]] {
      ReturnToHeap();
      return;
    }
    // A stopped source, or a token a callable put in ctx.stop in place of
    // this source's own: the slot drops it and makes a new one when next lent.
    if (!lent_->Reusable()) [[unlikely]]
      *lent_ = PooledStop{};
    *free_ |= bit_;
  }
  StopSourceLease(const StopSourceLease&) = delete;
  StopSourceLease& operator=(const StopSourceLease&) = delete;

  std::stop_source& source() noexcept { return lent_->source; }
  std::stop_token& token() noexcept { return lent_->token; }

 private:
  void LendFromHeap();
  void ReturnToHeap() noexcept;

  PooledStop* lent_ = nullptr;     // a slot of the pool, or a heap one
  std::uint32_t* free_ = nullptr;  // the pool's free slots, null for a heap one
  std::uint32_t bit_ = 0;          // this lease's slot in *free_
};

}  // namespace stormguard
