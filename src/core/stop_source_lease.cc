#include "stormguard/core/stop_source_lease.h"

#include <cstddef>
#include <cstring>
#include <utility>

namespace stormguard {
namespace {

constexpr std::size_t kPooledStops = 16;  // asynchronous calls' sources kept per thread

struct StopPool {
  PooledStop items[kPooledStops];
  std::size_t size = 0;
};

}  // namespace

PooledStop TakePooledStop() {
  StopPool* pool = core_internal::ThreadCache<StopPool>();
  if (pool != nullptr && pool->size > 0) [[likely]]
    return std::move(pool->items[--pool->size]);
  return PooledStop::Fresh();
}

void ReturnPooledStop(PooledStop&& stop) noexcept {
  StopPool* pool = core_internal::ThreadCache<StopPool>();
  if (pool != nullptr && pool->size < kPooledStops && stop.Reusable()) pool->items[pool->size++] = std::move(stop);
  stop = PooledStop{};  // a stopped one goes away here, unless a copy of it is still held
}

PooledStop PooledStop::Fresh() {
  PooledStop s;
  s.source = std::stop_source();
  s.token = s.source.get_token();
  std::memcpy(&s.id, static_cast<const void*>(&s.token), sizeof s.id);
  return s;
}

void StopSourceLease::LendFromHeap() { lent_ = new PooledStop(PooledStop::Fresh()); }

void StopSourceLease::ReturnToHeap() noexcept { delete lent_; }

}  // namespace stormguard
