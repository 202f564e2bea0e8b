// An HTTP service guarded by stormguard's middleware, and a client calling
// it through a pipeline, in one process on loopback. The service fails each
// of its two routes once with a 503, as a service restarting behind a load
// balancer would; the client's retry absorbs it, and a keyed POST repeated
// by its caller is answered from the idempotency store instead of running
// again:
//
//   GET /stock: HTTP 200 "42 in stock" after 2 attempts
//   POST /reservations: HTTP 201 "reservation 1" after 2 attempts
//   POST /reservations again, same key: HTTP 201 "reservation 1" after 1 attempt
//   the reservation handler ran 2 times, 1 reservation made, 1 answer replayed
//
// Exits 0 when every outcome is the one above.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

// [snippet:http]
#include "stormguard/http/client.h"
#include "stormguard/http/server.h"
#include "stormguard/http/server_tuning.h"
#include "stormguard/pipeline/presets.h"
#include "stormguard/retry/token_bucket_budget.h"
// [end snippet]

using namespace std::chrono_literals;
using namespace stormguard;

namespace {

// The inventory's own logic, which knows nothing of deadlines or retries.
// Each route fails its first request with a 503, as a service restarting
// behind a load balancer would.
struct Inventory {
  void Stock(httplib::Response& res) {
    if (++stock_requests == 1) {
      res.status = 503;
      return;
    }
    res.set_content("42 in stock", "text/plain");
  }
  void Reserve(httplib::Response& res) {
    if (++reserve_runs == 1) {  // fails before any effect: a 5xx is not stored, a retry runs again
      res.status = 503;
      return;
    }
    res.status = 201;
    res.set_content("reservation " + std::to_string(++reservations), "text/plain");
  }

  std::atomic<int> stock_requests{0}, reserve_runs{0}, reservations{0};
};

// Prints one call's outcome and says whether it is the expected one.
bool Expect(const char* what, const http::HttpResult& r, int status, const std::string& body, int attempts) {
  const int got = r.response ? r.response->status : 0;
  std::printf("%s: HTTP %d \"%s\" after %d attempt%s\n", what, got, r.response ? r.response->body.c_str() : "",
              r.attempts, r.attempts == 1 ? "" : "s");
  const bool as_expected = r.ok() && got == status && r.response->body == body && r.attempts == attempts;
  if (!as_expected) {
    std::printf("  unexpected: wanted HTTP %d \"%s\" after %d attempts (%s)\n", status, body.c_str(), attempts,
                r.status.ToString().c_str());
  }
  return as_expected;
}

}  // namespace

int main() {
  Inventory inventory;

  // [snippet:http]

  // The inventory service. The middleware gives each request a deadline
  // from its caller's headers (refusing one already spent), and with a
  // store runs a POST carrying an Idempotency-Key at most once.
  auto store = http::IdempotencyStore::Create({}).value();
  auto mw = http::Middleware::Create({.idempotency = store.get()}).value();
  httplib::Server server;
  server.Get("/stock", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    inventory.Stock(res);  // calls made from here inherit the request's deadline and retry mark
  }));
  server.Post("/reservations", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    inventory.Reserve(res);
  }));
  // No-delay, a real backlog and keep-alive; port 0: any free port.
  const int port = http::TuneAndBind(server, {.workers = 8}, "127.0.0.1", 0).value();
  std::thread serving([&] { server.listen_after_bind(); });  // requests sent before it runs wait in the backlog
  const std::string base = "http://127.0.0.1:" + std::to_string(port);

  // Its callers: the user-facing preset (1 s overall, 3 attempts with
  // jittered backoff, capped by a retry budget) plus a circuit breaker.
  // (Or registry.Follow("inventory"): every request then runs on the configured pipeline in force.)
  auto budget = TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}).value();
  PipelineRef pipeline =
      presets::UserFacing({.budget = budget}).AddCircuitBreaker(CircuitBreakerOptions{}).Build().value();
  auto client = http::HttpClient::Create({.pipeline = pipeline}).value();

  // A GET may be repeated: a 503 (the service restarting) is retried.
  http::HttpResult stock = client.Send({.url = base + "/stock"});
  // A POST is repeated only with an idempotency key, the same on every attempt.
  http::HttpRequest reserve{.method = "POST", .url = base + "/reservations", .body = R"({"sku": "A-7"})",
                            .idempotency_key = "order-7"};
  http::HttpResult reserved = client.Send(reserve);
  // [end snippet]
  // The caller lost that answer and sends the same operation again: the
  // server answers from its store, and the handler does not run.
  http::HttpResult again = client.Send(reserve);

  bool ok = Expect("GET /stock", stock, 200, "42 in stock", 2);
  ok = Expect("POST /reservations", reserved, 201, "reservation 1", 2) && ok;
  ok = Expect("POST /reservations again, same key", again, 201, "reservation 1", 1) && ok;
  const std::uint64_t replays = mw->stats().idempotent_replays;
  std::printf("the reservation handler ran %d times, %d reservation made, %llu answer replayed\n",
              inventory.reserve_runs.load(), inventory.reservations.load(), static_cast<unsigned long long>(replays));
  ok = ok && inventory.reserve_runs == 2 && inventory.reservations == 1 && replays == 1;

  server.stop();
  serving.join();
  return ok ? 0 : 1;
}
