// src/config/thread_index.h: a small number per live thread, for per-thread
// slots in an array (the registry's references).
//
// Numbers are below a fixed limit and unique among live threads; a thread's
// number is given back when it exits and may go to a later thread. A
// thread that finds every number taken gets -1 (and keeps it).
#pragma once

namespace stormguard::config::config_internal {

inline constexpr int kUnclaimedThreadIndex = -2;
// The calling thread's number, or kUnclaimedThreadIndex before its first
// ThreadIndex call. Constant-initialised, so reading it needs no TLS wrapper
// call from other files.
extern constinit thread_local int t_thread_index;

// Gives the calling thread its number; takes a process-wide lock.
int ClaimThreadIndex(int limit) noexcept;

// The calling thread's number in [0, limit), or -1. `limit` must be the
// same on every call.
inline int ThreadIndex(int limit) noexcept {
  const int i = t_thread_index;
  return i != kUnclaimedThreadIndex ? i : ClaimThreadIndex(limit);
}

}  // namespace stormguard::config::config_internal
