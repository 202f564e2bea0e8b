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
//   std::swap(ctx.stop, lease.token());     // hand out its token: no refcount moves
//   ...                                     // a timer may call lease.source().request_stop()
//   std::swap(ctx.stop, lease.token());     // take it back before the lease ends
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

#include <cstdint>
#include <stop_token>

namespace stormguard {

// A source and the token handed out for it; `id` is the state the token
// referred to when it was made (zero: none yet).
struct PooledStop {
  std::stop_source source{std::nostopstate};
  std::stop_token token;
  std::uintptr_t id = 0;

  // Whether it may serve another call: never stopped, its own token back.
  bool Reusable() const noexcept;
};

// A never-stopped source from the calling thread's pool, or a new one.
PooledStop TakePooledStop();
// Keeps `stop` in the calling thread's pool when it is reusable and there is
// room; otherwise releases it.
void ReturnPooledStop(PooledStop&& stop) noexcept;

class StopSourceLease {
 public:
  StopSourceLease();
  ~StopSourceLease();
  StopSourceLease(const StopSourceLease&) = delete;
  StopSourceLease& operator=(const StopSourceLease&) = delete;

  std::stop_source& source() noexcept { return lent_->source; }
  std::stop_token& token() noexcept { return lent_->token; }

 private:
  PooledStop* lent_;         // a slot of the pool, or a heap one
  std::uint32_t* free_;      // the pool's free slots, null for a heap one
  std::uint32_t bit_ = 0;    // this lease's slot in *free_
};

}  // namespace stormguard
