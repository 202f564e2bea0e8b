#include "stormguard/http/server.h"

#include <chrono>

#include "stormguard/core/validation.h"

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
  return std::move(v).errors();
}

Result<std::unique_ptr<Middleware>> Middleware::Create(MiddlewareOptions options) {
  Status s = ValidationStatus("middleware options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<Middleware>(new Middleware(std::move(options)));
}

httplib::Server::Handler Middleware::Wrap(Handler handler) {
  return [this, h = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    Serve(h, req, res);
  };
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

  AdmissionTicket ticket;
  if (o_.admission) {
    ticket = o_.admission(ctx);
    if (!ticket.status.ok()) {
      counters_.shed.fetch_add(1, std::memory_order_relaxed);
      counters_.marked_no_retry.fetch_add(1, std::memory_order_relaxed);
      const RetryHints& h = ticket.status.hints();
      const bool pause = ticket.status.code() == StatusCode::kResourceExhausted && h.pushback;
      Refuse(res, pause ? 429 : 503, ticket.status.ToString(),
             pause ? RetryHints{.pushback = h.pushback} : RetryHints{.do_not_retry = true});
      return;
    }
  }
  struct Release {
    std::function<void()>& fn;
    ~Release() { if (fn) fn(); }
  } release{ticket.release};

  const std::string key = ctx.idempotency_key;
  if (o_.idempotency != nullptr && !key.empty()) {
    IdempotencyClaim claim = o_.idempotency->Begin(key, now);
    if (claim.state == IdempotencyClaim::kDone) {
      counters_.idempotent_replays.fetch_add(1, std::memory_order_relaxed);
      Replay(*claim.response, res);
      return;
    }
    if (claim.state == IdempotencyClaim::kRunning) {
      if (!ServeRepeat(key, ctx, res)) {
        counters_.idempotent_conflicts.fetch_add(1, std::memory_order_relaxed);
        res.status = 409;
        res.set_content("a request with this Idempotency-Key is still running", "text/plain");
      }
      return;
    }
  }
  std::stop_source stop;
  ctx.stop = stop.get_token();
  {
    ScopedTimer cancel_at_deadline(o_.timers != nullptr ? *o_.timers : TimerService::Default(),
                                   ctx.deadline.time(), stop);
    RunHandler(handler, req, res, ctx);
  }
  if (o_.idempotency != nullptr && !key.empty()) {
    // A 5xx may have failed before any effect: let a retry run it again.
    if (res.status >= 500) {
      o_.idempotency->Abandon(key);
    } else {
      o_.idempotency->Complete(key, Snapshot(res), o_.clock->Now());
    }
  }
}

void Middleware::RunHandler(const Handler& handler, const httplib::Request& req, httplib::Response& res,
                            CallContext& ctx) {
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

bool Middleware::ServeRepeat(const std::string& key, const CallContext& ctx, httplib::Response& res) {
  const Duration wait = std::min(ctx.deadline.Remaining(o_.clock->Now()), o_.limits.max_budget);
  std::optional<HttpResponse> done = o_.idempotency->AwaitCompletion(key, wait);
  if (!done) return false;
  counters_.idempotent_replays.fetch_add(1, std::memory_order_relaxed);
  Replay(*done, res);
  return true;
}

MiddlewareStats Middleware::stats() const noexcept {
  const auto get = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return {get(counters_.served),          get(counters_.expired_refused), get(counters_.clamped),
          get(counters_.shed),            get(counters_.marked_no_retry), get(counters_.idempotent_replays),
          get(counters_.idempotent_conflicts)};
}

}  // namespace stormguard::http
