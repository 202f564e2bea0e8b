// stormguard/http/idempotency_store.h: run a keyed HTTP request at most once.
//
// A typed face of KeyedAnswerStore (wire/keyed_answer_store.h, which holds
// the bounds, the TTL and the request fingerprint) that records and replays
// HttpResponses:
//
//   IdempotencyScope scope{caller, "POST", "/pay", key};
//   auto claim = store.Begin(scope, BodyFingerprint(body), now);
//   switch (claim.state) {
//     case kFirst:    run the handler, then store.Complete(scope, response, now)
//                     (or store.Abandon(scope) when it failed before any effect);
//     case kDone:     answer *claim.response, do not run the handler;
//     case kRunning:  store.AwaitCompletion(scope, until) or answer 409;
//     case kMismatch: the key was used for a different body: answer 422.
//   }
//
// Thread safety: all methods are thread-safe, as the engine's.
#pragma once

#include <memory>
#include <optional>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"
#include "stormguard/http/message.h"
#include "stormguard/wire/keyed_answer_store.h"

namespace stormguard::http {

using stormguard::BodyFingerprint;
using stormguard::IdempotencyScope;
using stormguard::IdempotencyStats;
using stormguard::IdempotencyStoreOptions;

struct IdempotencyClaim {
  enum State { kFirst, kRunning, kDone, kMismatch };
  State state = kFirst;
  std::optional<HttpResponse> response;  // for kDone
};

class IdempotencyStore {
 public:
  static Result<std::unique_ptr<IdempotencyStore>> Create(IdempotencyStoreOptions options);

  IdempotencyClaim Begin(const IdempotencyScope& scope, std::uint64_t fingerprint, TimePoint now);
  void Complete(const IdempotencyScope& scope, const HttpResponse& response, TimePoint now);
  // The first request failed without effect: forget the key so a retry runs.
  void Abandon(const IdempotencyScope& scope) { engine_->Abandon(scope); }
  // Waits (real time, bounded by `max_wait`) for a running key to finish;
  // nullopt when it did not, or was abandoned (then at once).
  std::optional<HttpResponse> AwaitCompletion(const IdempotencyScope& scope, Duration max_wait);

  IdempotencyStats stats() const { return engine_->stats(); }

 private:
  explicit IdempotencyStore(std::unique_ptr<KeyedAnswerStore> engine) : engine_(std::move(engine)) {}
  std::unique_ptr<KeyedAnswerStore> engine_;
};

}  // namespace stormguard::http
