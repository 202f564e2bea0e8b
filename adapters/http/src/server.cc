#include "stormguard/http/server.h"

#include <chrono>

#include "stormguard/core/classifier.h"
#include "stormguard/core/validation.h"
#include "stormguard/pipeline/server_pipeline.h"

namespace stormguard::http {
namespace {

HttpResponse Snapshot(const httplib::Response& res) {
  HttpResponse out;
  out.status = res.status;
  out.body = res.body;
  for (const auto& [name, value] : res.headers) out.headers.emplace_back(name, value);
  return out;
}

void Replay(const HttpResponse& stored, httplib::Response& res) {
  res.status = stored.status;
  res.body = stored.body;
  for (const auto& [name, value] : stored.headers) res.set_header(name, value);
  res.set_header("x-idempotent-replay", "1");
}

void Refuse(httplib::Response& res, int status, const std::string& why, const RetryHints& hints) {
  res.status = status;
  res.set_content(why, "text/plain");
  InjectRetryHintsHttp(hints, res.headers);
}

}  // namespace

std::int64_t UnixNowMs() noexcept {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> MiddlewareOptions::Validate() const {
  Validator v;
  v.Nest("limits", limits.Validate());
  v.Check(clock != nullptr, "clock", "must not be null");
  v.Nest("pipeline", ServerPipelineErrors(pipeline, "request"));
  return std::move(v).errors();
}

Result<std::unique_ptr<Middleware>> Middleware::Create(MiddlewareOptions options) {
  Status s = ValidationStatus("middleware options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<Middleware>(new Middleware(std::move(options)));
}

httplib::Server::Handler Middleware::Wrap(Handler handler) {
  return [this, h = std::move(handler)](const httplib::Request& req, httplib::Response& res) { Serve(h, req, res); };
}

void Middleware::Serve(const Handler& handler, const httplib::Request& req, httplib::Response& res) {
  counters_.served.fetch_add(1, std::memory_order_relaxed);
  const TimePoint now = o_.clock->Now();
  ExtractedContext in = Extract(req.headers, now, UnixNowMs(), o_.limits);
  if (in.clamped) counters_.clamped.fetch_add(1, std::memory_order_relaxed);
  if (in.expired) {
    counters_.expired_refused.fetch_add(1, std::memory_order_relaxed);
    Refuse(res, 504, "deadline already passed on arrival", RetryHints{.do_not_retry = true});
    return;
  }
  CallContext& ctx = in.context;
  const bool unsafe = !IsSafeMethod(req.method);
  if (unsafe && KeyRefused(req, ctx, res)) return;
  const bool keyed = unsafe && o_.idempotency != nullptr && !ctx.idempotency_key.empty();
  bool reached = false;
  auto serve = [&](CallContext& c) {
    reached = true;
    if (keyed) {
      ServeKeyed(handler, req, res, c, now);
    } else {
      Run(handler, req, res, c);
    }
    return res.status >= 500 ? StatusFromHttp(res.status) : Status::Ok();
  };
  PipelineRef pinned;
  bool misconfigured = false;
  const Pipeline* pipeline = ServerPipelineFor(o_.pipeline, pinned, misconfigured);
  if (misconfigured) counters_.misconfigured.fetch_add(1, std::memory_order_relaxed);
  if (pipeline == nullptr) {
    serve(ctx);
    return;
  }
  const Status s = pipeline->Execute(ctx, serve);
  if (!reached) Shed(s, res);
}

// A guard of the pipeline refused the request before it ran.
void Middleware::Shed(const Status& refusal, httplib::Response& res) {
  counters_.shed.fetch_add(1, std::memory_order_relaxed);
  const RetryHints& h = refusal.hints();
  const bool pause = refusal.code() == StatusCode::kResourceExhausted && h.pushback;
  if (!pause) counters_.marked_no_retry.fetch_add(1, std::memory_order_relaxed);
  Refuse(res, pause ? 429 : 503, refusal.ToString(),
         pause ? RetryHints{.pushback = h.pushback} : RetryHints{.do_not_retry = true});
}

// An Idempotency-Key header that Extract dropped (empty, too long, not
// printable ASCII), or one sent twice, cannot be deduplicated: running the
// request anyway would let the client's retries run it several times. It is
// refused with or without a store, since a handler may deduplicate by the
// key itself (as the gRPC guard refuses it on every path).
bool Middleware::KeyRefused(const httplib::Request& req, const CallContext& ctx, httplib::Response& res) {
  const std::string name(kDefaultWireNames.idempotency_key);
  const std::size_t sent = req.get_header_value_count(name);
  if (sent == 0 || (sent == 1 && !ctx.idempotency_key.empty())) return false;
  counters_.invalid_keys.fetch_add(1, std::memory_order_relaxed);
  Refuse(res, 400,
         "Idempotency-Key: must be 1 to " + std::to_string(o_.limits.max_idempotency_key_length) +
             " printable ASCII characters, sent once",
         RetryHints{});
  return true;
}

void Middleware::ServeKeyed(const Handler& handler, const httplib::Request& req, httplib::Response& res,
                            CallContext& ctx, TimePoint now) {
  const std::string caller = o_.caller_identity ? o_.caller_identity(req) : std::string();
  const IdempotencyScope scope{caller, req.method, req.path, ctx.idempotency_key};
  IdempotencyStore& store = *o_.idempotency;
  IdempotencyClaim claim = store.Begin(scope, BodyFingerprint(req.body), now);
  switch (claim.state) {
    case IdempotencyClaim::kFirst: break;
    case IdempotencyClaim::kDone:
      counters_.idempotent_replays.fetch_add(1, std::memory_order_relaxed);
      Replay(*claim.response, res);
      return;
    case IdempotencyClaim::kRunning:
      if (!ServeRepeat(scope, ctx, res)) {
        counters_.idempotent_conflicts.fetch_add(1, std::memory_order_relaxed);
        res.status = 409;
        res.set_content("a request with this Idempotency-Key is still running", "text/plain");
      }
      return;
    case IdempotencyClaim::kMismatch:
      counters_.idempotent_mismatches.fetch_add(1, std::memory_order_relaxed);
      res.status = 422;
      res.set_content("this Idempotency-Key was already used for a request with another body", "text/plain");
      return;
  }
  Run(handler, req, res, ctx);
  // A 5xx may have failed before any effect: let a retry run it again.
  if (res.status >= 500) {
    store.Abandon(scope);
  } else {
    store.Complete(scope, Snapshot(res), o_.clock->Now());
  }
}

bool Middleware::ServeRepeat(const IdempotencyScope& scope, const CallContext& ctx, httplib::Response& res) {
  const Duration wait = std::min(ctx.deadline.Remaining(o_.clock->Now()), o_.limits.max_budget);
  std::optional<HttpResponse> done = o_.idempotency->AwaitCompletion(scope, wait);
  if (!done) return false;
  counters_.idempotent_replays.fetch_add(1, std::memory_order_relaxed);
  Replay(*done, res);
  return true;
}

// Runs the handler under the request's context, cancelled at its deadline.
void Middleware::Run(const Handler& handler, const httplib::Request& req, httplib::Response& res, CallContext& ctx) {
  std::stop_source stop;
  ctx.stop = stop.get_token();
  ScopedTimer cancel_at_deadline(o_.timers != nullptr ? *o_.timers : TimerService::Default(), ctx.deadline.time(),
                                 stop);
  ScopedCallContext scope(ctx);
  try {
    handler(req, res, ctx);
  } catch (const std::exception& e) {
    res.status = 500;
    res.set_content(std::string("handler threw: ") + e.what(), "text/plain");
  } catch (...) {
    res.status = 500;
    res.set_content("handler threw", "text/plain");
  }
  if (ctx.downstream_gave_up && res.status >= 500) {
    counters_.marked_no_retry.fetch_add(1, std::memory_order_relaxed);
    InjectRetryHintsHttp(RetryHints{.do_not_retry = true}, res.headers);
  }
}

MiddlewareStats Middleware::stats() const noexcept {
  const auto get = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return {get(counters_.served),
          get(counters_.expired_refused),
          get(counters_.clamped),
          get(counters_.shed),
          get(counters_.marked_no_retry),
          get(counters_.idempotent_replays),
          get(counters_.idempotent_conflicts),
          get(counters_.idempotent_mismatches),
          get(counters_.invalid_keys),
          get(counters_.misconfigured)};
}

}  // namespace stormguard::http
