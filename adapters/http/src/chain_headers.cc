#include "stormguard/http/chain_headers.h"

#include "stormguard/core/classifier.h"
#include "stormguard/http/server.h"
#include "stormguard/wire/http_headers.h"
#include "stormguard/wire/propagation.h"

namespace stormguard::http {

Status CheckIdempotencyKey(std::string_view key) {
  if (key.empty() || IsValidIdempotencyKey(key)) return Status::Ok();
  return Status::InvalidArgument("idempotency_key: must be 1 to " + std::to_string(kMaxIdempotencyKeyLength) +
                                 " printable ASCII characters (got " + std::to_string(key.size()) +
                                 " bytes); nothing was sent");
}

void AppendRequestChainHeaders(const CallContext& attempt, TimePoint now, const RequestChainOptions& options,
                               HeaderList& out) {
  // The reserve was taken when the call's deadline was derived; the attempt
  // deadline is what this hop grants the next one.
  InjectHttp(attempt, now, UnixNowMs(),
             [&out](std::string_view name, std::string_view value) { out.emplace_back(name, value); },
             {.write_absolute_deadline = options.absolute_deadline,
              .ask_sidecar_not_to_retry = options.ask_sidecar_not_to_retry});
}

ResponseMapping ResponseMapping::For(const HttpRequest& request, bool chain_protocol) noexcept {
  const bool keyed = !request.idempotency_key.empty();
  return {.chain_protocol = chain_protocol, .keyed = keyed, .once_only = !keyed && !IsIdempotentMethod(request.method)};
}

Status StatusOfResponse(const HttpResponse& response, const ResponseMapping& mapping) {
  if (response.status >= 100 && response.status < 400) return Status::Ok();
  Status s = StatusFromHttp(response.status);
  std::optional<OutcomeClass>& outcome = s.mutable_hints().outcome;
  if (mapping.chain_protocol && response.status == 409 && mapping.keyed) {
    // The first request with this Idempotency-Key is still running (IETF
    // idempotency-key draft): come back later, it is not a conflict to fix.
    outcome = OutcomeClass::kTransient;
  }
  if (mapping.once_only && (outcome == OutcomeClass::kTransient || outcome == OutcomeClass::kOverloaded)) {
    outcome = OutcomeClass::kAmbiguous;
  }
  if (!mapping.chain_protocol) return s;
  RetryHints hints = ReadRetryHints(response.headers, UnixNowMs(), mapping.retry_after_cap);
  hints.outcome = s.hints().outcome;
  return std::move(s).WithHints(std::move(hints));
}

OutcomeClass ReplicaOutcome(const Result<HttpResponse>& attempt) {
  if (!attempt.ok()) return DefaultClassifier().Classify(attempt.status());
  return ClassifyHttpStatus(attempt->status);
}

}  // namespace stormguard::http
