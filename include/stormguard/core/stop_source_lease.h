// stormguard/core/stop_source_lease.h: stop sources that are reused, so
// cancelling per call allocates nothing once warm.
//
// std::stop_source allocates its shared state, and a call that gets its own
// (a timeout's attempt, a hedged call's primary) would allocate on every
// call. A StopSourceLease takes one from a small pool of the calling
// thread's sources that were never stopped (up to 8 per thread, so nested
// leases reuse theirs) and gives it back when destroyed:
//
//   StopSourceLease lease;                  // the thread's pool, or a new source
//   std::swap(ctx.stop, lease.token());     // hand out its token: no refcount moves
//   ...                                     // a timer may call lease.source().request_stop()
//   std::swap(ctx.stop, lease.token());     // take it back before the lease ends
//
// A stopped source is never reused, nor one whose lease.token() was replaced
// by another state's token. Whoever got a token (or a copy of the source)
// must not keep it past the lease: the source behind it may serve a later
// call of the same thread.
// Thread safety: a lease belongs to the thread that created it and must be
// destroyed there (the pool is thread-local).
#pragma once

#include <cstdint>
#include <stop_token>

namespace stormguard {

// A stop_source from the calling thread's pool of never-stopped sources,
// with a token of its own kept alongside.
class StopSourceLease {
 public:
  StopSourceLease();
  ~StopSourceLease();
  StopSourceLease(const StopSourceLease&) = delete;
  StopSourceLease& operator=(const StopSourceLease&) = delete;

  std::stop_source& source() noexcept { return source_; }
  std::stop_token& token() noexcept { return token_; }

 private:
  std::stop_source source_;
  std::stop_token token_;
  std::uintptr_t state_ = 0;  // the state token_ referred to when leased
};

}  // namespace stormguard
