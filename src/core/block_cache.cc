#include "stormguard/core/internal/block_cache.h"

#include <bit>
#include <new>
#include <utility>

#include "stormguard/core/internal/thread_cache.h"

namespace stormguard::core_internal {
namespace {

constexpr std::size_t kSmallest = 128;
constexpr std::size_t kClasses = 6;  // 128 B .. 4 KiB

// The class that serves `bytes`, or kClasses when none does.
std::size_t ClassOf(std::size_t bytes) noexcept {
  if (bytes <= kSmallest) return 0;
  if (bytes > (kSmallest << (kClasses - 1))) return kClasses;
  return static_cast<std::size_t>(std::bit_width(bytes - 1) - std::bit_width(kSmallest - 1));
}

constexpr std::size_t ClassBytes(std::size_t c) noexcept { return kSmallest << c; }

struct FreeBlockNode {
  FreeBlockNode* next;
};

struct BlockCache {
  FreeBlockNode* heads[kClasses] = {};
  std::size_t counts[kClasses] = {};
  std::size_t bytes = 0;

  ~BlockCache() {
    for (FreeBlockNode* head : heads) {
      while (head != nullptr) ::operator delete(static_cast<void*>(std::exchange(head, head->next)));
    }
  }
};

}  // namespace

void* AllocateBlock(std::size_t bytes) {
  const std::size_t c = ClassOf(bytes);
  if (c == kClasses) return ::operator new(bytes);
  BlockCache* cache = ThreadCache<BlockCache>();
  if (cache != nullptr && cache->heads[c] != nullptr) [[likely]] {
    FreeBlockNode* block = cache->heads[c];
    cache->heads[c] = block->next;
    --cache->counts[c];
    cache->bytes -= ClassBytes(c);
    return block;
  }
  return ::operator new(ClassBytes(c));
}

void FreeBlock(void* block, std::size_t bytes) noexcept {
  const std::size_t c = ClassOf(bytes);
  BlockCache* cache = c == kClasses ? nullptr : ThreadCache<BlockCache>();
  if (cache == nullptr || cache->counts[c] == kBlocksPerClass || cache->bytes + ClassBytes(c) > kCacheBytes) {
    return ::operator delete(block);
  }
  cache->heads[c] = new (block) FreeBlockNode{cache->heads[c]};
  ++cache->counts[c];
  cache->bytes += ClassBytes(c);
}

}  // namespace stormguard::core_internal
