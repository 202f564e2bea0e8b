#include "stormguard/core/internal/block_cache.h"

#include <bit>
#include <new>
#include <utility>

#include "stormguard/core/internal/thread_cache.h"

namespace stormguard::core_internal {
namespace {

constexpr std::size_t kSmallest = 128;
constexpr std::size_t kLargest = 4096;
// Four classes per doubling (160, 192, 224, 256, 320, ...), so a block is
// at most a quarter larger than asked for: with 100,000 calls waiting, a
// frame's rounding is paid 100,000 times.
constexpr std::size_t kClassesPerDoubling = 4;
constexpr int kSmallestBits = std::bit_width(kSmallest - 1);  // 7
constexpr std::size_t kClasses =
    1 + kClassesPerDoubling * static_cast<std::size_t>(std::bit_width(kLargest - 1) - kSmallestBits);

// The class that serves `bytes`, or kClasses when none does.
std::size_t ClassOf(std::size_t bytes) noexcept {
  if (bytes <= kSmallest) return 0;
  if (bytes > kLargest) return kClasses;
  const int below = std::bit_width(bytes - 1) - 1;  // 2^below < bytes <= 2^(below + 1)
  const std::size_t step = (std::size_t{1} << below) / kClassesPerDoubling;
  const std::size_t steps = (bytes - (std::size_t{1} << below) + step - 1) / step;  // 1 .. 4
  return static_cast<std::size_t>(below - kSmallestBits) * kClassesPerDoubling + steps;
}

constexpr std::size_t ClassBytes(std::size_t c) noexcept {
  if (c == 0) return kSmallest;
  const std::size_t base = kSmallest << ((c - 1) / kClassesPerDoubling);
  return base + base / kClassesPerDoubling * ((c - 1) % kClassesPerDoubling + 1);
}

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
