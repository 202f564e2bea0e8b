#include "stormguard/core/stop_source_lease.h"

#include <bit>
#include <cstddef>
#include <cstring>
#include <utility>

#include "stormguard/core/internal/thread_cache.h"

namespace stormguard {
namespace {

constexpr std::size_t kLeaseSlots = 8;   // nested timeouts per thread that reuse a source
constexpr std::size_t kPooledStops = 16;  // asynchronous calls' sources kept per thread

// Which stop state a token refers to, without touching its reference count
// (a stop_token is one pointer to that state).
std::uintptr_t StateOf(const std::stop_token& t) noexcept {
  static_assert(sizeof(std::stop_token) == sizeof(std::uintptr_t));
  std::uintptr_t id;
  std::memcpy(&id, reinterpret_cast<const unsigned char*>(&t), sizeof id);
  return id;
}

void Fill(PooledStop& s) {
  s.source = std::stop_source();
  s.token = s.source.get_token();
  s.id = StateOf(s.token);
}

// Slots lent in place: a set bit in `free` is a slot no lease holds. A slot
// with id 0 has no source yet (or lost a stopped one) and is filled on use.
struct LeasePool {
  PooledStop slots[kLeaseSlots];
  std::uint32_t free = (1u << kLeaseSlots) - 1;
};

struct StopPool {
  PooledStop items[kPooledStops];
  std::size_t size = 0;
};

}  // namespace

bool PooledStop::Reusable() const noexcept {
  return id != 0 && StateOf(token) == id && !source.stop_requested();
}

PooledStop TakePooledStop() {
  StopPool* pool = core_internal::ThreadCache<StopPool>();
  if (pool != nullptr && pool->size > 0) [[likely]] return std::move(pool->items[--pool->size]);
  PooledStop s;
  Fill(s);
  return s;
}

void ReturnPooledStop(PooledStop&& stop) noexcept {
  StopPool* pool = core_internal::ThreadCache<StopPool>();
  if (pool != nullptr && pool->size < kPooledStops && stop.Reusable()) pool->items[pool->size++] = std::move(stop);
  stop = PooledStop{};  // a stopped one goes away here, unless a copy of it is still held
}

StopSourceLease::StopSourceLease() {
  LeasePool* pool = core_internal::ThreadCache<LeasePool>();
  if (pool == nullptr || pool->free == 0) [[unlikely]] {
    PooledStop fresh;
    Fill(fresh);
    lent_ = new PooledStop(std::move(fresh));
    free_ = nullptr;
    return;
  }
  const int slot = std::countr_zero(pool->free);
  lent_ = &pool->slots[slot];
  if (lent_->id == 0) [[unlikely]] Fill(*lent_);
  bit_ = 1u << slot;
  free_ = &pool->free;
  *free_ &= ~bit_;
}

StopSourceLease::~StopSourceLease() {
  if (free_ == nullptr) [[unlikely]] {
    delete lent_;
    return;
  }
  // A stopped source, or a token a callable put in ctx.stop in place of this
  // source's own: the slot drops it and makes a new one when next lent.
  if (!lent_->Reusable()) [[unlikely]] *lent_ = PooledStop{};
  *free_ |= bit_;
}

}  // namespace stormguard
