// The library at every hop: http::HttpClient calling through the pipeline
// tools/demo/stormguard.json configures for the next hop (demo_config.h):
// exponential backoff with full jitter, a retry budget shared by every call
// to the destination (a token bucket, 10 tokens, 0.1 per success); here,
// deadline propagation (10% reserve per hop) and one idempotency key across
// a POST's retries; x-retry-attempt / x-no-retry through the middleware on
// the serving side.
#include "demo/caller.h"
#include "demo/demo_config.h"
#include "demo/must.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/client.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

// The registry's "bottom" set with C's replicas as members (its picker and
// outlier detection come from stormguard.json); null for one C, whose
// calls go where the URL says.
std::shared_ptr<ReplicaSet> BottomReplicas(const std::vector<int>& ports) {
  if (ports.empty()) return nullptr;
  std::shared_ptr<ReplicaSet> set = DemoRegistry().Replicas("bottom");
  if (!set) Must(Status::FailedPrecondition("stormguard.json gives \"bottom\" no \"replicas\""));
  std::vector<EndpointSpec> members;
  for (int port : ports) members.push_back({"127.0.0.1:" + std::to_string(port)});
  Must(set->Update(std::move(members)));
  return set;
}

http::HttpClientOptions ClientOptions(NextHop next, const std::vector<int>& replica_ports) {
  // The bottom hop knows its callee answers in milliseconds: its pipeline
  // hedges a call slower than the p95 of recent ones (a charge's hedge
  // carries its idempotency key, so C answers it once) and has a short
  // attempt timeout, which turns a stuck answer into a quick retry. A hop above a relay leaves each attempt the whole
  // deadline, so the layer below can finish its own retries.
  auto pipeline = DemoRegistry().Follow(next == NextHop::kBottom ? "bottom" : "relay");
  // Every hop runs on this host, on one clock: the absolute deadline lets a
  // callee refuse an attempt that waited in its accept queue (C paused, say)
  // until after this hop gave up, instead of working for nobody.
  return {.connect_timeout = 200ms,
          .default_timeout = 1s,
          .reserve = {.fraction = 0.1},
          .pipeline = std::move(pipeline),
          .replicas = BottomReplicas(replica_ports),
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
    if (res.response) out.attempts_below = std::string(res.response->Header(kAttemptsHeader).value_or(""));
    // A 2xx the pipeline still judged a failure (a chaos stage replaced the
    // outcome, say) is not passed on as a success.
    const bool judged_failed = !res.status.ok() && res.response && res.response->status < 300;
    if (res.response && !judged_failed) {
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

std::unique_ptr<Caller> MakeStormguardCaller(NextHop next, const std::vector<int>& replica_ports) {
  return std::make_unique<StormguardCaller>(Must(http::HttpClient::Create(ClientOptions(next, replica_ports))));
}

}  // namespace stormguard::demo
