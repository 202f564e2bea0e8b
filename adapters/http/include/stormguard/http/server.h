// stormguard/http/server.h: chain-protocol middleware for a cpp-httplib server.
//
// Wrap a handler and every request it serves:
//   - gets a CallContext from its headers: the smallest budget among
//     x-request-timeout-ms, x-request-deadline, x-envoy-expected-rq-timeout-ms
//     and grpc-timeout, whichever are present, wins (the caller who can wait
//     least decides); it is clamped to this server's own maximum, so a
//     hostile header can never extend it;
//   - is refused with 504 before any handler runs when that budget is spent;
//   - runs with that context installed as CurrentCallContext(), so the
//     handler's HttpClient calls inherit deadline, retry flag and stop token;
//   - is cancelled when its deadline passes: ctx.stop fires (a shared
//     TimerService arms it), so work nobody waits for any more stops;
//   - runs inside the options' pipeline, when given, whose guards shed load;
//   - answers `x-no-retry: 1` when a downstream call gave up after retrying
//     or this server shed the request, so no layer above retries it again;
//   - with an Idempotency-Key and a store, runs at most once per (caller,
//     method, path, key): a repeat gets the stored answer, a repeat arriving
//     while the first runs waits for it (within its own deadline) or gets 409,
//     a key reused with a different body gets 422, and a key the server
//     cannot honour (empty, too long, not printable ASCII) gets 400 instead of
//     running undeduplicated. A 5xx is not stored, so a retry runs again.
//     Safe methods (GET, HEAD, OPTIONS, TRACE) bypass the store.
//
//   httplib::Server http;
//   stormguard::http::Middleware mw(options);
//   http.Get("/stock", mw.Wrap([](const httplib::Request&, httplib::Response& res,
//                                 CallContext& ctx) { ... }));
//
// Thread safety: one Middleware serves all of httplib's worker threads.
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>

#include "stormguard/core/call_context.h"
#include "stormguard/core/clock.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/http/idempotency_store.h"
#include "stormguard/pipeline/pipeline_ref.h"
#include "stormguard/wire/propagation.h"

namespace stormguard::http {

struct MiddlewareOptions {
  ServerLimits limits;                      // default and maximum budget per request
  IdempotencyStore* idempotency = nullptr;  // optional; not owned
  // Optional load shedding: each request runs inside this pipeline's guards
  // (bulkhead, rate limiter, adaptive concurrency, breaker, timeout; shared
  // and immutable, e.g. a configured one). A stage's refusal sheds the
  // request before the handler runs: RESOURCE_EXHAUSTED with a pushback ->
  // 429 + Retry-After; anything else -> 503 + x-no-retry. The guards judge
  // a 5xx answer by its HTTP status (StatusFromHttp: a 503 is a failure, a
  // 500 is a bug, not overload). A server runs a request once, so a retry or
  // hedge stage is refused. Fixed, or live (registry.Follow("inbound")) to
  // follow every reload; a reload that brings a retry or hedge is not
  // applied to requests (each is served unguarded, counted in
  // MiddlewareStats::misconfigured) until fixed.
  PipelineRef pipeline;
  // Who sent a request, for the idempotency store: the same key from two
  // callers is two operations. Default (empty): all callers share one key
  // space. E.g. [](const httplib::Request& r) { return r.get_header_value("x-api-key"); }
  // or r.remote_addr. Its result is stored with each keyed answer.
  std::function<std::string(const httplib::Request&)> caller_identity;
  Clock* clock = &Clock::Real();
  // Fires ctx.stop at each request's deadline; must run on `clock`.
  // nullptr: TimerService::Default() (the real clock).
  TimerService* timers = nullptr;
  std::vector<std::string> Validate() const;
};

struct MiddlewareStats {
  std::uint64_t served = 0;
  std::uint64_t expired_refused = 0;  // budget spent on arrival: no work done
  std::uint64_t clamped = 0;          // a header asked for more than max_budget
  std::uint64_t shed = 0;             // refused by the pipeline's guards
  std::uint64_t marked_no_retry = 0;  // answers that carried x-no-retry
  std::uint64_t idempotent_replays = 0;
  std::uint64_t idempotent_conflicts = 0;   // 409: the first is still running
  std::uint64_t idempotent_mismatches = 0;  // 422: a key reused with another body
  std::uint64_t invalid_keys = 0;           // 400: an Idempotency-Key it cannot honour
  std::uint64_t misconfigured = 0;          // served unguarded: a reload gave the pipeline a retry or hedge
};

using Handler = std::function<void(const httplib::Request&, httplib::Response&, CallContext&)>;

class Middleware {
 public:
  static Result<std::unique_ptr<Middleware>> Create(MiddlewareOptions options);

  httplib::Server::Handler Wrap(Handler handler);
  MiddlewareStats stats() const noexcept;

 private:
  explicit Middleware(MiddlewareOptions o) : o_(std::move(o)) {}
  void Serve(const Handler& handler, const httplib::Request& req, httplib::Response& res);
  void Shed(const Status& refusal, httplib::Response& res);
  bool KeyRefused(const httplib::Request& req, const CallContext& ctx, httplib::Response& res);
  void ServeKeyed(const Handler& handler, const httplib::Request& req, httplib::Response& res, CallContext& ctx,
                  TimePoint now);
  bool ServeRepeat(const IdempotencyScope& scope, const CallContext& ctx, httplib::Response& res);
  void Run(const Handler& handler, const httplib::Request& req, httplib::Response& res, CallContext& ctx);

  MiddlewareOptions o_;
  struct Counters {
    std::atomic<std::uint64_t> served{0}, expired_refused{0}, clamped{0}, shed{0}, marked_no_retry{0},
        idempotent_replays{0}, idempotent_conflicts{0}, idempotent_mismatches{0}, invalid_keys{0}, misconfigured{0};
  } counters_;
};

// Wall-clock Unix milliseconds (for x-request-deadline and Retry-After dates).
std::int64_t UnixNowMs() noexcept;

}  // namespace stormguard::http
