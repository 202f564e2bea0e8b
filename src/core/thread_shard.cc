#include "stormguard/core/internal/thread_shard.h"

#include <mutex>
#include <vector>

#include "stormguard/core/internal/thread_cache.h"

namespace stormguard::core_internal {
namespace {

// Hands out the owned shards; a thread returns its shard when it exits, so a
// pool's threads keep owning shards however many threads came and went.
class ShardOwners {
 public:
  int Take() {
    std::lock_guard lock(mu_);
    if (free_.empty()) return kOwnedShards;
    const int id = free_.back();
    free_.pop_back();
    return id;
  }
  void Give(int id) {
    if (id == kOwnedShards) return;
    std::lock_guard lock(mu_);
    free_.push_back(id);
  }

  static ShardOwners& Get() {
    static ShardOwners* const owners = new ShardOwners;  // outlives every thread's exit
    return *owners;
  }

 private:
  ShardOwners() {
    for (int i = kOwnedShards - 1; i >= 0; --i) free_.push_back(i);
  }
  std::mutex mu_;
  std::vector<int> free_;
};

// Owns the shard for the thread's lifetime. At exit it sends the thread to
// the shared shard first: counts added later in its exit must not land in a
// shard that another thread may own by then.
struct ThreadShardId {
  int id = ShardOwners::Get().Take();
  ~ThreadShardId() {
    tls_shard = kOwnedShards;
    ShardOwners::Get().Give(id);
  }
};

}  // namespace

int TakeThreadShard() noexcept {
  const ThreadShardId* id = ThreadCache<ThreadShardId>();
  tls_shard = id != nullptr ? id->id : kOwnedShards;
  return tls_shard;
}

}  // namespace stormguard::core_internal
