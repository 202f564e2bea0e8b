// stormguard/core/internal/block_cache.h (internal): heap blocks recycled
// per thread, for memory that every asynchronous call takes and gives back
// (its pipeline frame, a hedged attempt's branch).
//
//   void* p = core_internal::AllocateBlock(bytes);  // the thread's cache once warm
//   ...
//   core_internal::FreeBlock(p, bytes);             // any thread, the same `bytes`
//
// Blocks come in size classes, four per doubling from 128 bytes to 4 KiB; a
// larger request goes to the heap every time. Each thread keeps at most
// kBlocksPerClass freed blocks per class and kCacheBytes in all; a block
// freed beyond that, or during the thread's exit, goes back to the heap. A
// block freed on another thread joins that thread's cache: a block is plain
// memory, so whichever thread frees it may reuse it. A thread's cache is
// returned to the heap when the thread exits.
// Not part of the public API. Thread safety: every function may be called
// from any thread; each thread's cache is its own.
#pragma once

#include <cstddef>

namespace stormguard::core_internal {

inline constexpr std::size_t kBlocksPerClass = 16;
inline constexpr std::size_t kCacheBytes = 64 * 1024;

// At least `bytes`, aligned for std::max_align_t. Throws std::bad_alloc.
void* AllocateBlock(std::size_t bytes);
// `block` came from AllocateBlock(bytes) on any thread.
void FreeBlock(void* block, std::size_t bytes) noexcept;

}  // namespace stormguard::core_internal
