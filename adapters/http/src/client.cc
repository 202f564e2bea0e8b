#include "stormguard/http/client.h"

#include "stormguard/core/validation.h"
#include "stormguard/http/chain_headers.h"
#include "stormguard/http/curl_transport.h"

namespace stormguard::http {

std::vector<std::string> HttpClientOptions::Validate() const {
  Validator v;
  v.Check(connect_timeout > Duration::zero(), "connect_timeout", "must be positive");
  v.Check(default_timeout > Duration::zero(), "default_timeout", "must be positive");
  v.CheckRange(reserve.fraction, "reserve.fraction", Range{0.0, 1.0, false, true});
  v.Check(reserve.overhead >= Duration::zero(), "reserve.overhead", "must not be negative");
  v.Check(max_response_bytes >= 1, "max_response_bytes", "must be at least 1");
  v.Check(clock != nullptr, "clock", "must not be null");
  v.Nest("retry", retry.Validate());
  return std::move(v).errors();
}

Result<HttpClient> HttpClient::Create(HttpClientOptions options) {
  Status s = ValidationStatus("http client options", options.Validate());
  if (!s.ok()) return s;
  RetryOptions retrying = options.retry;
  retrying.idempotent = true;
  RetryOptions once = options.retry;
  once.max_attempts = 1;
  auto a = RetryPolicy::Create(std::move(retrying));
  if (!a.ok()) return std::move(a).status();
  auto b = RetryPolicy::Create(std::move(once));
  if (!b.ok()) return std::move(b).status();
  return HttpClient(std::move(options), std::move(a).value(), std::move(b).value());
}

HttpResult HttpClient::Send(const HttpRequest& request) const {
  if (CallContext* current = CurrentCallContext()) return Send(request, *current);
  CallContext root;
  return Send(request, root);
}

HttpResult HttpClient::Send(const HttpRequest& request, CallContext& parent) const {
  if (Status key = CheckIdempotencyKey(request.idempotency_key); !key.ok()) {
    HttpResult refused;
    refused.status = std::move(key);
    refused.run.reason = StopReason::kNotRetryable;
    return refused;
  }
  Clock& clock = *o_.clock;
  const TimePoint now = clock.Now();
  CallContext call;
  call.deadline = parent.deadline.ForNextHop(now, o_.reserve).Within(now, o_.default_timeout);
  call.stop = parent.stop;
  call.incoming_is_retry = o_.chain_protocol && parent.incoming_is_retry;
  call.idempotency_key = request.idempotency_key;
  const bool may_retry = IsIdempotentMethod(request.method) || !request.idempotency_key.empty();
  const RetryPolicy& policy = may_retry ? retrying_ : once_;

  HttpResult result;
  HeaderList chain;
  auto attempt = [&](CallContext& a) -> Status {
    const TimePoint start = clock.Now();
    chain.clear();
    if (o_.chain_protocol) AppendRequestChainHeaders(a, start, o_.absolute_deadline, chain);
    Result<HttpResponse> r = PerformOnce(
        request, chain, {a.deadline, o_.connect_timeout, start, o_.max_response_bytes}, a.stop);
    if (!r.ok()) return std::move(r).status();
    Status s = StatusOfResponse(*r, o_.chain_protocol, !request.idempotency_key.empty(),
                                o_.retry.max_pushback);
    result.response = std::move(r).value();
    return s;
  };
  result.status = ExecuteWithRetry(policy, call, attempt, clock, ThreadLocalRandom(), &result.run);
  if (call.downstream_gave_up) parent.downstream_gave_up = true;
  return result;
}

}  // namespace stormguard::http
