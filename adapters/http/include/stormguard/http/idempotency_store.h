// stormguard/http/idempotency_store.h: run a keyed request at most once.
//
// A client that retries a POST after a lost response sends the same
// Idempotency-Key again; the server must not charge twice (see
// docs/retry-amplification.md, "Idempotency: who may repeat a call"). The store remembers,
// per key, whether the first request is still running or what it answered:
//
//   auto claim = store.Begin(key, now);
//   switch (claim.state) {
//     case Claim::kFirst:    run the handler, then store.Complete(key, response, now)
//                            (or store.Abandon(key) when it failed before any effect);
//     case Claim::kDone:     answer *claim.response, do not run the handler;
//     case Claim::kRunning:  store.AwaitCompletion(key, until) or answer 409.
//   }
//
// Bounded: at most `max_entries` keys, each kept for `ttl` after it
// completes; the oldest completed entries are evicted first, and every
// eviction is counted in stats() (an evicted key can run again: the bound
// trades memory against the window in which repeats are caught).
//
// Thread safety: all methods are thread-safe (one mutex; this sits next to
// a network round trip). AwaitCompletion blocks on a condition variable.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

struct IdempotencyStoreOptions {
  std::size_t max_entries = 100'000;
  Duration ttl = std::chrono::hours(24);
  std::vector<std::string> Validate() const;
};

struct IdempotencyClaim {
  enum State { kFirst, kRunning, kDone };
  State state = kFirst;
  std::optional<HttpResponse> response;  // for kDone
};

struct IdempotencyStats {
  std::uint64_t first = 0;      // requests that ran
  std::uint64_t replayed = 0;   // repeats answered from the store
  std::uint64_t concurrent = 0; // repeats that found the first still running
  std::uint64_t evicted = 0;    // entries dropped by the size bound
  std::uint64_t expired = 0;    // entries dropped by the TTL
  std::size_t entries = 0;
};

class IdempotencyStore {
 public:
  static Result<std::unique_ptr<IdempotencyStore>> Create(IdempotencyStoreOptions options);

  IdempotencyClaim Begin(const std::string& key, TimePoint now);
  void Complete(const std::string& key, const HttpResponse& response, TimePoint now);
  // The first request failed without effect: forget the key so a retry runs.
  void Abandon(const std::string& key);
  // Waits (real time, bounded by `max_wait`) for a running key to finish.
  std::optional<HttpResponse> AwaitCompletion(const std::string& key, Duration max_wait);

  IdempotencyStats stats() const;

 private:
  explicit IdempotencyStore(IdempotencyStoreOptions o) : o_(o) {}
  struct Entry {
    bool done = false;
    HttpResponse response;
    TimePoint completed_at{};
    std::list<std::string>::iterator order;  // position in completed_ (when done)
  };
  void ExpireLocked(TimePoint now);
  void EvictLocked();

  IdempotencyStoreOptions o_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> completed_;  // oldest completion first
  IdempotencyStats stats_;
};

}  // namespace stormguard::http
