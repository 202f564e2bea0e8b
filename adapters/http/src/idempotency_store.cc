#include "stormguard/http/idempotency_store.h"

#include <utility>

namespace stormguard::http {
namespace {

// An HTTP answer is its status, headers and body; it has no message.
RecordedAnswer Record(const HttpResponse& r) {
  return {.code = r.status, .message = {}, .headers = r.headers, .body = r.body};
}

HttpResponse Replay(RecordedAnswer a) {
  return {.status = a.code, .headers = std::move(a.headers), .body = std::move(a.body)};
}

}  // namespace

Result<std::unique_ptr<IdempotencyStore>> IdempotencyStore::Create(IdempotencyStoreOptions options) {
  Result<std::unique_ptr<KeyedAnswerStore>> engine = KeyedAnswerStore::Create(options);
  if (!engine.ok()) return engine.status();
  return std::unique_ptr<IdempotencyStore>(new IdempotencyStore(std::move(engine).value()));
}

IdempotencyClaim IdempotencyStore::Begin(const IdempotencyScope& scope, std::uint64_t fingerprint, TimePoint now) {
  AnswerClaim claim = engine_->Begin(scope, fingerprint, now);
  IdempotencyClaim out{static_cast<IdempotencyClaim::State>(claim.state), std::nullopt};
  if (claim.answer) out.response = Replay(std::move(*claim.answer));
  return out;
}

void IdempotencyStore::Complete(const IdempotencyScope& scope, const HttpResponse& response, TimePoint now) {
  engine_->Complete(scope, Record(response), now);
}

std::optional<HttpResponse> IdempotencyStore::AwaitCompletion(const IdempotencyScope& scope, Duration max_wait) {
  std::optional<RecordedAnswer> done = engine_->AwaitCompletion(scope, max_wait);
  if (!done) return std::nullopt;
  return Replay(std::move(*done));
}

}  // namespace stormguard::http
