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

void AppendRequestChainHeaders(const CallContext& attempt, TimePoint now, bool absolute_deadline, HeaderList& out) {
  // The reserve was taken when the call's deadline was derived; the attempt
  // deadline is what this hop grants the next one.
  InjectHttp(attempt, now, UnixNowMs(),
             [&out](std::string_view name, std::string_view value) { out.emplace_back(name, value); },
             {.write_absolute_deadline = absolute_deadline});
}

Status StatusOfResponse(const HttpResponse& response, bool chain_protocol, bool keyed,
                        Duration max_pushback) {
  if (response.status >= 100 && response.status < 400) return Status::Ok();
  Status s = StatusFromHttp(response.status);
  if (!chain_protocol) return s;
  if (response.status == 409 && keyed) {
    // The first request with this Idempotency-Key is still running (IETF
    // idempotency-key draft): come back later, it is not a conflict to fix.
    s.mutable_hints().outcome = OutcomeClass::kTransient;
  }
  RetryHints hints = ReadRetryHints(response.headers, UnixNowMs(), max_pushback);
  hints.outcome = s.hints().outcome;
  return std::move(s).WithHints(std::move(hints));
}

}  // namespace stormguard::http
