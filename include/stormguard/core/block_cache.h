// stormguard/core/block_cache.h: the per-thread cache of small heap blocks
// that the pipeline's asynchronous frames come from, for a driver that keeps
// per-call memory the same way (the coroutine driver keeps a call's result
// in one from the call's end until its caller takes it).
//
//   void* p = AllocateCachedBlock(sizeof(T));  // the thread's cache once warm
//   T* t = new (p) T(...);
//   t->~T();
//   FreeCachedBlock(p, sizeof(T));             // any thread, the same size
//
// Size classes, limits and thread safety: core/internal/block_cache.h. A
// block is aligned for std::max_align_t, no more.
#pragma once

#include <cstddef>

#include "stormguard/core/internal/block_cache.h"

namespace stormguard {

// At least `bytes`. Throws std::bad_alloc.
inline void* AllocateCachedBlock(std::size_t bytes) { return core_internal::AllocateBlock(bytes); }
// `block` came from AllocateCachedBlock(bytes) on any thread.
inline void FreeCachedBlock(void* block, std::size_t bytes) noexcept { core_internal::FreeBlock(block, bytes); }

}  // namespace stormguard
