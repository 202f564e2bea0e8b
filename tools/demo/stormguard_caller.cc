// The library at every hop: http::HttpClient calling through a pipeline,
// with deadline propagation (10% reserve per hop), exponential backoff with
// full jitter, a retry budget shared by every call to the destination (a
// token bucket, 10 tokens, 0.1 per success), one idempotency key across a
// POST's retries, x-retry-attempt / x-no-retry through the middleware on the
// serving side.
#include "demo/caller.h"
#include "demo/must.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/client.h"
#include "stormguard/http/server.h"
#include "stormguard/pipeline/pipeline.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

http::HttpClientOptions ClientOptions(NextHop next) {
  RetryOptions retry{.max_attempts = 3,
                     .backoff = {.kind = BackoffKind::kExponential, .base = 50ms, .cap = 500ms,
                                 .jitter = Jitter::kFull},
                     .min_attempt_time = 20ms};
  // The bottom hop knows its callee answers in milliseconds: a short attempt
  // timeout turns a stuck or lost answer into a quick retry. A hop above a
  // relay leaves each attempt the whole deadline, so the layer below can
  // finish its own retries.
  if (next == NextHop::kBottom) retry.per_attempt_timeout = 250ms;
  retry.budget = Must(TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}));
  auto pipeline = std::make_shared<const Pipeline>(Must(PipelineBuilder().AddRetry(retry).Build()));
  // Every hop runs on this host, on one clock: the absolute deadline lets a
  // callee refuse an attempt that waited in its accept queue (C paused, say)
  // until after this hop gave up, instead of working for nobody.
  return {.connect_timeout = 200ms, .default_timeout = 1s, .reserve = {.fraction = 0.1},
          .pipeline = std::move(pipeline),
          .absolute_deadline = true};
}

class StormguardCaller final : public Caller {
 public:
  explicit StormguardCaller(http::HttpClient client) : client_(std::move(client)) {}

  CallOutcome Call(const http::HttpRequest& request, const Measure& m, CallContext& ctx) const override {
    http::HttpRequest r = request;
    if (!http::IsIdempotentMethod(r.method)) r.idempotency_key = ctx.idempotency_key;
    StampMeasure(m, WallMsOf(ctx.deadline, Clock::Real().Now(), http::UnixNowMs()), r.headers);
    http::HttpResult res = client_.Send(r, ctx);
    CallOutcome out{.attempts = res.attempts};
    if (res.response) {
      out.status = res.response->status;
      out.body = std::move(res.response->body);
    } else {
      out.status = res.status.code() == StatusCode::kDeadlineExceeded ? 504 : 502;
      out.body = res.status.ToString();
    }
    return out;
  }

 private:
  http::HttpClient client_;
};

}  // namespace

std::unique_ptr<Caller> MakeStormguardCaller(NextHop next) {
  return std::make_unique<StormguardCaller>(Must(http::HttpClient::Create(ClientOptions(next))));
}

}  // namespace stormguard::demo
