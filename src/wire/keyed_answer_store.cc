#include "stormguard/wire/keyed_answer_store.h"

#include <algorithm>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

// The map key of a scope: each part but the last is length-prefixed, so no
// choice of caller, path or key can collide with another scope.
std::string ScopeKey(const IdempotencyScope& s) {
  std::string out;
  out.reserve(s.caller.size() + s.method.size() + s.path.size() + s.key.size() + 24);
  for (const std::string_view part : {s.caller, s.method, s.path}) {
    out.append(std::to_string(part.size())).push_back(':');
    out.append(part);
  }
  out.append(s.key);
  return out;
}

// What an entry really holds in memory: its map node (key, Entry, the
// node's link and cached hash, a bucket slot), its list node, and the heap
// text of its key and answer.
std::size_t EntryBytes(const std::string& key, const RecordedAnswer& answer) {
  constexpr std::size_t kNode = sizeof(std::pair<const std::string, char>) + 3 * sizeof(void*);
  constexpr std::size_t kListNode = 3 * sizeof(void*);
  std::size_t bytes = kNode + kListNode + key.size() + answer.message.size() + answer.body.size();
  for (const auto& [name, value] : answer.headers) {
    bytes += sizeof(std::pair<std::string, std::string>) + name.size() + value.size();
  }
  return bytes;
}

}  // namespace

std::uint64_t BodyFingerprint(std::string_view body) noexcept {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64-bit offset basis and prime
  for (const char c : body) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

std::vector<std::string> IdempotencyStoreOptions::Validate() const {
  Validator v;
  v.Check(max_entries >= 1, "max_entries", "must be at least 1");
  v.Check(max_bytes >= 1, "max_bytes", "must be at least 1");
  v.Check(ttl > Duration::zero(), "ttl", "must be positive");
  return std::move(v).errors();
}

Result<std::unique_ptr<KeyedAnswerStore>> KeyedAnswerStore::Create(IdempotencyStoreOptions options) {
  Status s = ValidationStatus("idempotency store options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<KeyedAnswerStore>(new KeyedAnswerStore(options));
}

AnswerClaim KeyedAnswerStore::Begin(const IdempotencyScope& scope, std::uint64_t fingerprint, TimePoint now) {
  std::string key = ScopeKey(scope);
  std::lock_guard lock(mu_);
  ExpireLocked(now);
  auto [it, inserted] = entries_.try_emplace(std::move(key));
  Entry& e = it->second;
  if (inserted) {
    ++stats_.first;
    e.fingerprint = fingerprint;
    e.bytes = EntryBytes(it->first, e.answer);
    bytes_ += e.bytes;
    EvictLocked();
    return {AnswerClaim::kFirst, std::nullopt};
  }
  if (e.fingerprint != fingerprint) {
    ++stats_.mismatched;
    return {AnswerClaim::kMismatch, std::nullopt};
  }
  if (!e.done) {
    ++stats_.concurrent;
    return {AnswerClaim::kRunning, std::nullopt};
  }
  ++stats_.replayed;
  return {AnswerClaim::kDone, e.answer};
}

void KeyedAnswerStore::Complete(const IdempotencyScope& scope, RecordedAnswer answer, TimePoint now) {
  const std::string key = ScopeKey(scope);
  std::vector<std::pair<std::uint64_t, CompletionWatcher>> watchers;
  std::optional<RecordedAnswer> recorded;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.done) return;
    Entry& e = it->second;
    watchers.swap(e.watchers);
    stats_.waiting -= watchers.size();
    if (!watchers.empty()) recorded = answer;  // before eviction may drop the entry
    e.done = true;
    e.answer = std::move(answer);
    e.completed_at = now;
    e.order = completed_.insert(completed_.end(), &it->first);
    bytes_ -= e.bytes;
    e.bytes = EntryBytes(it->first, e.answer);
    bytes_ += e.bytes;
    EvictLocked();
  }
  changed_.notify_all();
  Notify(std::move(watchers), recorded);
}

void KeyedAnswerStore::Abandon(const IdempotencyScope& scope) {
  const std::string key = ScopeKey(scope);
  std::vector<std::pair<std::uint64_t, CompletionWatcher>> watchers;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && !it->second.done) {
      watchers.swap(it->second.watchers);
      stats_.waiting -= watchers.size();
      EraseLocked(it);
    }
  }
  changed_.notify_all();
  Notify(std::move(watchers), std::nullopt);
}

std::uint64_t KeyedAnswerStore::Watch(const IdempotencyScope& scope, std::uint64_t fingerprint,
                                      CompletionWatcher notify) {
  const std::string key = ScopeKey(scope);
  std::optional<RecordedAnswer> now;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.fingerprint == fingerprint) {
      Entry& e = it->second;
      if (!e.done) {
        const std::uint64_t ticket = next_ticket_++;
        e.watchers.emplace_back(ticket, std::move(notify));
        ++stats_.waiting;
        return ticket;
      }
      now = e.answer;
    }
  }
  notify(std::move(now));
  return 0;
}

bool KeyedAnswerStore::Unwatch(const IdempotencyScope& scope, std::uint64_t ticket) {
  if (ticket == 0) return false;
  const std::string key = ScopeKey(scope);
  CompletionWatcher dropped;  // destroyed after the lock: it may own anything
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  auto& watchers = it->second.watchers;
  const auto w = std::find_if(watchers.begin(), watchers.end(), [&](const auto& p) { return p.first == ticket; });
  if (w == watchers.end()) return false;
  dropped = std::move(w->second);
  watchers.erase(w);
  --stats_.waiting;
  return true;
}

void KeyedAnswerStore::Notify(std::vector<std::pair<std::uint64_t, CompletionWatcher>> watchers,
                              const std::optional<RecordedAnswer>& answer) {
  for (auto& [ticket, notify] : watchers) notify(answer);
}

std::optional<RecordedAnswer> KeyedAnswerStore::AwaitCompletion(const IdempotencyScope& scope, Duration max_wait) {
  const std::string key = ScopeKey(scope);
  std::unique_lock lock(mu_);
  ++stats_.waiting;
  std::optional<RecordedAnswer> out;
  changed_.wait_for(lock, max_wait, [&] {
    auto it = entries_.find(key);
    if (it == entries_.end()) return true;  // abandoned: nothing to wait for
    if (it->second.done) out = it->second.answer;
    return it->second.done;
  });
  --stats_.waiting;
  return out;
}

IdempotencyStats KeyedAnswerStore::stats() const {
  std::lock_guard lock(mu_);
  IdempotencyStats s = stats_;
  s.entries = entries_.size();
  s.bytes = bytes_;
  return s;
}

void KeyedAnswerStore::EraseLocked(Map::iterator it) {
  bytes_ -= it->second.bytes;
  if (it->second.done) completed_.erase(it->second.order);
  entries_.erase(it);
}

void KeyedAnswerStore::ExpireLocked(TimePoint now) {
  while (!completed_.empty()) {
    auto it = entries_.find(*completed_.front());
    if (now - it->second.completed_at < o_.ttl) break;
    EraseLocked(it);
    ++stats_.expired;
  }
}

void KeyedAnswerStore::EvictLocked() {
  // Running entries are never evicted: dropping one would let its repeat run
  // concurrently, the very thing the store exists to prevent.
  while ((entries_.size() > o_.max_entries || bytes_ > o_.max_bytes) && !completed_.empty()) {
    EraseLocked(entries_.find(*completed_.front()));
    ++stats_.evicted;
  }
}

}  // namespace stormguard
