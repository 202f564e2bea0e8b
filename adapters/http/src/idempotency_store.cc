#include "stormguard/http/idempotency_store.h"

#include "stormguard/core/validation.h"

namespace stormguard::http {

std::vector<std::string> IdempotencyStoreOptions::Validate() const {
  Validator v;
  v.Check(max_entries >= 1, "max_entries", "must be at least 1");
  v.Check(ttl > Duration::zero(), "ttl", "must be positive");
  return std::move(v).errors();
}

Result<std::unique_ptr<IdempotencyStore>> IdempotencyStore::Create(IdempotencyStoreOptions options) {
  Status s = ValidationStatus("idempotency store options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<IdempotencyStore>(new IdempotencyStore(options));
}

IdempotencyClaim IdempotencyStore::Begin(const std::string& key, TimePoint now) {
  std::lock_guard lock(mu_);
  ExpireLocked(now);
  auto [it, inserted] = entries_.try_emplace(key);
  if (inserted) {
    ++stats_.first;
    EvictLocked();
    return {IdempotencyClaim::kFirst, std::nullopt};
  }
  if (!it->second.done) {
    ++stats_.concurrent;
    return {IdempotencyClaim::kRunning, std::nullopt};
  }
  ++stats_.replayed;
  return {IdempotencyClaim::kDone, it->second.response};
}

void IdempotencyStore::Complete(const std::string& key, const HttpResponse& response, TimePoint now) {
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.done) return;
    it->second.done = true;
    it->second.response = response;
    it->second.completed_at = now;
    it->second.order = completed_.insert(completed_.end(), key);
    EvictLocked();
  }
  changed_.notify_all();
}

void IdempotencyStore::Abandon(const std::string& key) {
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && !it->second.done) entries_.erase(it);
  }
  changed_.notify_all();
}

std::optional<HttpResponse> IdempotencyStore::AwaitCompletion(const std::string& key, Duration max_wait) {
  std::unique_lock lock(mu_);
  std::optional<HttpResponse> out;
  changed_.wait_for(lock, max_wait, [&] {
    auto it = entries_.find(key);
    if (it == entries_.end()) return true;  // abandoned: the caller may run it
    if (it->second.done) out = it->second.response;
    return it->second.done;
  });
  return out;
}

IdempotencyStats IdempotencyStore::stats() const {
  std::lock_guard lock(mu_);
  IdempotencyStats s = stats_;
  s.entries = entries_.size();
  return s;
}

void IdempotencyStore::ExpireLocked(TimePoint now) {
  while (!completed_.empty()) {
    auto it = entries_.find(completed_.front());
    if (it == entries_.end() || now - it->second.completed_at < o_.ttl) break;
    entries_.erase(it);
    completed_.pop_front();
    ++stats_.expired;
  }
}

void IdempotencyStore::EvictLocked() {
  // Running entries are never evicted: dropping one would let its repeat run
  // concurrently, the very thing the store exists to prevent.
  while (entries_.size() > o_.max_entries && !completed_.empty()) {
    entries_.erase(completed_.front());
    completed_.pop_front();
    ++stats_.evicted;
  }
}

}  // namespace stormguard::http
