// stormguard/http/server.h: chain-protocol middleware for a cpp-httplib server.
//
// Wrap a handler and every request it serves:
//   - gets a CallContext from its headers (x-request-timeout-ms, else
//     x-request-deadline, else x-envoy-expected-rq-timeout-ms), clamped to
//     this server's own maximum, so a hostile header can never extend it;
//   - is refused with 504 before any handler runs when that budget is spent;
//   - runs with that context installed as CurrentCallContext(), so the
//     handler's HttpClient calls inherit deadline, retry flag and stop token;
//   - is cancelled when its deadline passes: ctx.stop fires (a shared
//     TimerService arms it), so work nobody waits for any more stops;
//   - answers `x-no-retry: 1` when a downstream call gave up after retrying
//     or this server shed the request, so no layer above retries it again;
//   - with an Idempotency-Key and a store, runs at most once: a repeat gets
//     the stored answer, a repeat arriving while the first runs waits for it
//     (within its own deadline) or gets 409.
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
#include "stormguard/http/idempotency_store.h"
#include "stormguard/pipeline/timer_service.h"
#include "stormguard/wire/propagation.h"

namespace stormguard::http {

// Sheds load before the handler runs: return a non-OK status to refuse
// (RESOURCE_EXHAUSTED with a pushback -> 429 + Retry-After; anything else ->
// 503 + x-no-retry). The returned release function runs when the request ends.
struct AdmissionTicket {
  Status status;
  std::function<void()> release;
};
using Admission = std::function<AdmissionTicket(const CallContext&)>;

struct MiddlewareOptions {
  ServerLimits limits;             // default and maximum budget per request
  IdempotencyStore* idempotency = nullptr;  // optional; not owned
  Admission admission;             // optional load shedding
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
  std::uint64_t shed = 0;             // refused by admission
  std::uint64_t marked_no_retry = 0;  // answers that carried x-no-retry
  std::uint64_t idempotent_replays = 0;
  std::uint64_t idempotent_conflicts = 0;
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
  void RunHandler(const Handler& handler, const httplib::Request& req, httplib::Response& res,
                  CallContext& ctx);
  bool ServeRepeat(const std::string& key, const CallContext& ctx, httplib::Response& res);

  MiddlewareOptions o_;
  struct Counters {
    std::atomic<std::uint64_t> served{0}, expired_refused{0}, clamped{0}, shed{0},
        marked_no_retry{0}, idempotent_replays{0}, idempotent_conflicts{0};
  } counters_;
};

// Wall-clock Unix milliseconds (for x-request-deadline and Retry-After dates).
std::int64_t UnixNowMs() noexcept;

}  // namespace stormguard::http
