#include "stormguard/core/stop_source_lease.h"

#include <cstddef>
#include <cstring>
#include <utility>

namespace stormguard {
namespace {

constexpr std::size_t kPoolSize = 8;  // nested timeouts per thread that reuse a source

struct PooledSource {
  std::stop_source source{std::nostopstate};
  std::stop_token token;
};

struct SourcePool {
  PooledSource items[kPoolSize];
  std::size_t size = 0;
};

SourcePool& Pool() noexcept {
  // A thread_local with a destructor is reached through an initialisation
  // check on every use; the plain pointer to it is not.
  thread_local SourcePool* cached = nullptr;
  if (cached != nullptr) [[likely]] return *cached;
  thread_local SourcePool pool;
  cached = &pool;
  return pool;
}

// Which stop state a token refers to, without touching its reference count
// (a stop_token is one pointer to that state).
std::uintptr_t StateOf(const std::stop_token& t) noexcept {
  static_assert(sizeof(std::stop_token) == sizeof(std::uintptr_t));
  std::uintptr_t id;
  std::memcpy(&id, reinterpret_cast<const unsigned char*>(&t), sizeof id);
  return id;
}

}  // namespace

StopSourceLease::StopSourceLease() : source_(std::nostopstate) {
  SourcePool& pool = Pool();
  if (pool.size == 0) {
    source_ = std::stop_source();
    token_ = source_.get_token();
  } else {
    PooledSource& top = pool.items[--pool.size];
    source_ = std::move(top.source);
    token_ = std::move(top.token);
  }
  state_ = StateOf(token_);
}

StopSourceLease::~StopSourceLease() {
  SourcePool& pool = Pool();
  // A callable that replaced ctx.stop leaves a token that is not this
  // source's own: such a pair is not reused.
  if (!source_.stop_requested() && StateOf(token_) == state_ && pool.size < kPoolSize) {
    PooledSource& slot = pool.items[pool.size++];
    slot.source = std::move(source_);
    slot.token = std::move(token_);
  }
}

}  // namespace stormguard
