// stormguard/core/internal/thread_shard.h (internal): per-thread shards for
// counters that only their own thread writes.
//
// Threads 0..kOwnedShards-1 own a shard each while they live and add to it
// with a plain load and store (no atomic read-modify-write, no cache line
// shared with another writer); every other thread shares the last shard and
// adds with relaxed atomic adds. Readers sum the shards.
// Not part of the public API. Thread safety: as described.
#pragma once

#include <atomic>
#include <cstdint>

namespace stormguard::core_internal {

inline constexpr int kOwnedShards = 8;
inline constexpr int kShardCount = kOwnedShards + 1;

// The thread's shard, cached in a trivial thread_local (read without a
// guard check); -1 until the thread first records.
inline thread_local int tls_shard = -1;
int TakeThreadShard() noexcept;

// The calling thread's shard: its own while it lives, or the shared one.
inline int ThreadShard() noexcept {
  if (tls_shard >= 0) [[likely]]
    return tls_shard;
  return TakeThreadShard();
}

// cell += n from the thread whose shard holds `cell`.
inline void ShardAdd(int shard, std::atomic<std::uint64_t>& cell, std::uint64_t n = 1) noexcept {
  if (shard < kOwnedShards) {
    cell.store(cell.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);  // only this thread writes it
  } else {
    cell.fetch_add(n, std::memory_order_relaxed);
  }
}

}  // namespace stormguard::core_internal
