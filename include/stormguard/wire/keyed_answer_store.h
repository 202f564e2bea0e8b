// stormguard/wire/keyed_answer_store.h: run a keyed request at most once,
// whatever the transport.
//
// A client that retries a POST-like call after a lost answer sends the same
// idempotency key again; the server must not take effect twice (a payment
// retried after a timeout may otherwise charge twice). The store remembers,
// per scope (caller, method, path, key), whether the first request is still
// running or what it answered, as an opaque RecordedAnswer (a code, a short
// message, headers and body bytes) that each transport encodes its own way
// (http/idempotency_store.h for HTTP, grpc/server.h for gRPC):
//
//   IdempotencyScope scope{caller, "POST", "/pay", key};
//   auto claim = store.Begin(scope, BodyFingerprint(body), now);
//   switch (claim.state) {
//     case kFirst:    run the handler, then store.Complete(scope, answer, now)
//                     (or store.Abandon(scope) when it failed before any effect);
//     case kDone:     answer *claim.answer, do not run the handler;
//     case kRunning:  store.AwaitCompletion(scope, until), or Watch it
//                     without blocking a thread, or refuse it;
//     case kMismatch: the key was used for a different request: refuse it.
//   }
//
// The same key from another caller, or on another method or path, is another
// operation. Within a scope, the entry keeps a fingerprint of the request, so
// a key reused for a different request is refused instead of answered with
// the first one's answer (the IETF Idempotency-Key draft).
//
// Bounded: at most `max_entries` entries and `max_bytes` (scope and answer
// of every entry, plus its bookkeeping), each kept for `ttl` after it
// completes; the oldest completed entries are evicted first, and every
// eviction is counted in stats() (an evicted key can run again: the bounds
// trade memory against the window in which repeats are caught). An answer
// larger than `max_bytes` alone is evicted at once. Running entries are
// never evicted; there is one per request in flight.
//
// Thread safety: all methods are thread-safe (one mutex; this sits next to
// a network round trip). AwaitCompletion blocks on a condition variable;
// Watch calls back instead, for servers whose threads must not block. The
// store must outlive every watch.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct IdempotencyStoreOptions {
  std::size_t max_entries = 100'000;
  // 64 MiB: 100,000 answers of ~600 bytes, or 1,000 of 64 KB.
  std::size_t max_bytes = std::size_t{64} << 20;
  Duration ttl = std::chrono::hours(24);
  std::vector<std::string> Validate() const;
};

// One logical operation. `caller` is who sent it ("" when the server does
// not tell callers apart).
struct IdempotencyScope {
  std::string_view caller;
  std::string_view method;
  std::string_view path;
  std::string_view key;
};

// A 64-bit FNV-1a hash of a request body: the same key with another body is
// another request. The method and path are part of the scope already.
std::uint64_t BodyFingerprint(std::string_view body) noexcept;

// What the first request answered, in the transport's own terms.
struct RecordedAnswer {
  int code = 0;
  std::string message;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct AnswerClaim {
  enum State { kFirst, kRunning, kDone, kMismatch };
  State state = kFirst;
  std::optional<RecordedAnswer> answer;  // for kDone
};

struct IdempotencyStats {
  std::uint64_t first = 0;       // requests that ran
  std::uint64_t replayed = 0;    // repeats answered from the store
  std::uint64_t concurrent = 0;  // repeats that found the first still running
  std::uint64_t mismatched = 0;  // keys reused with a different request
  std::uint64_t evicted = 0;     // entries dropped by the count or byte bound
  std::uint64_t expired = 0;     // entries dropped by the TTL
  std::size_t entries = 0;
  std::size_t bytes = 0;    // what the entries cost now
  std::size_t waiting = 0;  // callers in AwaitCompletion or watching
};

// Called once with the first request's answer, or nullopt (see Watch).
using CompletionWatcher = std::function<void(std::optional<RecordedAnswer>)>;

class KeyedAnswerStore {
 public:
  static Result<std::unique_ptr<KeyedAnswerStore>> Create(IdempotencyStoreOptions options);

  AnswerClaim Begin(const IdempotencyScope& scope, std::uint64_t fingerprint, TimePoint now);
  void Complete(const IdempotencyScope& scope, RecordedAnswer answer, TimePoint now);
  // The first request failed without effect: forget the key so a retry runs.
  void Abandon(const IdempotencyScope& scope);
  // Waits (real time, bounded by `max_wait`) for a running key to finish;
  // nullopt when it did not, or was abandoned (then at once).
  std::optional<RecordedAnswer> AwaitCompletion(const IdempotencyScope& scope, Duration max_wait);
  // The same without blocking: `notify` runs once, with the answer when the
  // running key completes, or nullopt when it is abandoned or now runs a
  // request with another fingerprint (its first was abandoned and the key
  // reused). It runs outside the lock, on the thread that completes or
  // abandons the key, or at once on this one when the key is not running
  // (then Watch returns 0). Otherwise returns a ticket for Unwatch. A watch
  // holds memory, not a thread: one per waiting call, which its own
  // deadline ends with Unwatch.
  std::uint64_t Watch(const IdempotencyScope& scope, std::uint64_t fingerprint, CompletionWatcher notify);
  // Withdraws a watch: true when its `notify` will never run, false when it
  // ran or is running.
  bool Unwatch(const IdempotencyScope& scope, std::uint64_t ticket);

  IdempotencyStats stats() const;

 private:
  explicit KeyedAnswerStore(IdempotencyStoreOptions o) : o_(o) {}
  struct Entry {
    bool done = false;
    std::uint64_t fingerprint = 0;
    std::size_t bytes = 0;
    RecordedAnswer answer;
    TimePoint completed_at{};
    std::list<const std::string*>::iterator order;                      // position in completed_ (when done)
    std::vector<std::pair<std::uint64_t, CompletionWatcher>> watchers;  // while running
  };
  using Map = std::unordered_map<std::string, Entry>;
  void EraseLocked(Map::iterator it);
  void ExpireLocked(TimePoint now);
  void EvictLocked();
  // Hands the watchers of a finished entry to their notify, after the lock.
  static void Notify(std::vector<std::pair<std::uint64_t, CompletionWatcher>> watchers,
                     const std::optional<RecordedAnswer>& answer);

  IdempotencyStoreOptions o_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  Map entries_;
  std::list<const std::string*> completed_;  // keys of entries_, oldest completion first
  std::size_t bytes_ = 0;
  IdempotencyStats stats_;
  std::uint64_t next_ticket_ = 1;
};

}  // namespace stormguard
