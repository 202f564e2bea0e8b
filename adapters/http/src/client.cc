#include "stormguard/http/client.h"

#include <atomic>
#include <mutex>

#include "stormguard/core/validation.h"
#include "stormguard/fleet/call_routing.h"
#include "stormguard/http/chain_headers.h"
#include "stormguard/http/curl_transport.h"

namespace stormguard::http {
namespace {

// The answer a call reports: the first success, else the latest failure.
// A hedge's attempts offer theirs from several threads.
class AnswerSlot {
 public:
  void Offer(HttpResponse response, bool ok, std::string_view endpoint) {
    std::lock_guard lock(mu_);
    if (ok_) return;
    ok_ = ok;
    response_ = std::move(response);
    endpoint_ = endpoint;
  }
  void TakeInto(HttpResult& result) {
    std::lock_guard lock(mu_);
    result.response = std::move(response_);
    result.endpoint = std::move(endpoint_);
  }

 private:
  std::mutex mu_;
  bool ok_ = false;
  std::optional<HttpResponse> response_;
  std::string endpoint_;
};

}  // namespace

std::vector<std::string> HttpClientOptions::Validate() const {
  Validator v;
  v.Check(connect_timeout > Duration::zero(), "connect_timeout", "must be positive");
  v.Check(default_timeout > Duration::zero(), "default_timeout", "must be positive");
  v.CheckRange(reserve.fraction, "reserve.fraction", Range{0.0, 1.0, false, true});
  v.Check(reserve.overhead >= Duration::zero(), "reserve.overhead", "must not be negative");
  v.Check(static_cast<bool>(pipeline), "pipeline", "is required (PipelineBuilder().Build() for none)");
  if (pipeline) {
    const PipelineRef in_force = pipeline.Pin();
    const std::string why = in_force.get()->RepeatsEveryCall();
    v.Check(why.empty(), "pipeline", why);
    // Send runs it blocking: an asynchronous-only one (a hedge without an
    // Executor) would refuse every request.
    const Status& blocking = in_force.get()->BlockingSupport();
    std::string_view blocking_why = blocking.message();
    if (blocking_why.starts_with("pipeline: ")) blocking_why.remove_prefix(10);  // the field names it already
    v.Check(blocking.ok(), "pipeline", blocking_why);
  }
  v.Check(max_response_bytes >= 1, "max_response_bytes", "must be at least 1");
  // A plain client sends no chain header: the request would go out without it.
  v.Check(chain_protocol || !ask_sidecar_not_to_retry, "ask_sidecar_not_to_retry", "needs chain_protocol");
  v.Check(clock != nullptr, "clock", "must not be null");
  return std::move(v).errors();
}

Result<HttpClient> HttpClient::Create(HttpClientOptions options) {
  Status s = ValidationStatus("http client options", options.Validate());
  if (!s.ok()) return s;
  return HttpClient(std::move(options));
}

HttpResult HttpClient::Send(const HttpRequest& request) const {
  if (CallContext* current = CurrentCallContext()) return Send(request, *current);
  CallContext root;
  return Send(request, root);
}

HttpResult HttpClient::Send(const HttpRequest& request, CallContext& parent) const {
  HttpResult result;
  if (Status key = CheckIdempotencyKey(request.idempotency_key); !key.ok()) {
    result.status = std::move(key);
    return result;
  }
  Clock& clock = *o_.clock;
  const TimePoint now = clock.Now();
  CallContext call;
  call.deadline = parent.deadline.ForNextHop(now, o_.reserve).Within(now, o_.default_timeout);
  call.stop = parent.stop;
  call.incoming_is_retry = o_.chain_protocol && parent.incoming_is_retry;
  call.idempotent = IsIdempotentMethod(request.method);
  call.idempotency_key = request.idempotency_key;
  call.idempotency_decided = true;  // by the request's method and key: never by the pipeline
  // Retry-After uncapped: the pipeline's retry and hedge clamp it to their own max_pushback.
  const ResponseMapping mapping = ResponseMapping::For(request, o_.chain_protocol);

  AnswerSlot answer;
  std::atomic<int> attempts{0};
  CallRouting routing(o_.replicas.get());
  auto attempt = [&](CallContext& a) -> Status {
    attempts.fetch_add(1, std::memory_order_relaxed);
    const TimePoint start = clock.Now();
    HeaderList chain;
    if (o_.chain_protocol) {
      AppendRequestChainHeaders(a, start,
                                {.absolute_deadline = o_.absolute_deadline,
                                 .ask_sidecar_not_to_retry = o_.ask_sidecar_not_to_retry},
                                chain);
    }
    PickedEndpoint replica = routing.Pick(start);
    const std::string endpoint = replica ? replica.address() : std::string();  // outlives a leaving replica
    Result<HttpResponse> r =
        PerformOnce(request, chain, {a.deadline, o_.connect_timeout, start, o_.max_response_bytes, endpoint}, a.stop);
    if (replica) routing.Report(replica, ReplicaOutcome(r), clock.Now());
    if (!r.ok()) return std::move(r).status();
    Status s = StatusOfResponse(*r, mapping);
    answer.Offer(std::move(r).value(), s.ok(), endpoint);
    return s;
  };
  result.status = o_.pipeline.Execute(call, attempt);
  answer.TakeInto(result);
  result.attempts = attempts.load(std::memory_order_relaxed);
  // Also without a retry in the pipeline: an x-no-retry answer passed on as
  // it is still tells the layers above not to retry.
  if (call.downstream_gave_up || result.status.hints().do_not_retry) parent.downstream_gave_up = true;
  return result;
}

}  // namespace stormguard::http
