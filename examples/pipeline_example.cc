// A user's first retries and pipelines around a flaky call: the retry
// driver alone, then a pipeline (fallback, overall timeout, retry with a
// budget, circuit breaker, bulkhead, per-attempt timeout) run blocking and
// asynchronously. The dependency fails every other call, so each read takes
// two attempts:
//
//   ExecuteWithRetry: 42 in stock after 2 attempts
//   Execute: 42 in stock after 2 attempts
//   ExecuteAsync: 42 in stock after 2 attempts
//
// Exits 0 when every read succeeds that way.
#include <chrono>
#include <cstdio>
#include <future>
#include <string>

#include "stormguard/metrics/counters.h"
#include "stormguard/pipeline/pipeline.h"
// [snippet:retry]
#include "stormguard/retry/retry_driver.h"
#include "stormguard/retry/token_bucket_budget.h"

using namespace std::chrono_literals;
using namespace stormguard;
// [end snippet]

namespace {

struct Stock {
  int count = 0;
};

// A flaky dependency: every other call fails, as behind a load balancer
// with one bad replica. `attempts` counts the calls of the current read.
class Inventory {
 public:
  Result<Stock> Get(const std::string& sku, Deadline, const std::stop_token&) {
    ++attempts;
    if (++calls_ % 2 == 1) return Status::Unavailable("inventory: 503 for " + sku);
    return Stock{42};
  }
  Result<Stock> Get(CallContext& c) { return Get("A-7", c.deadline, c.stop); }
  // The asynchronous form: answers through `done`, here at once.
  void GetAsync(CallContext& c, Completion<Result<Stock>> done) { done(Get(c)); }

  int attempts = 0;

 private:
  int calls_ = 0;
};

bool Report(const char* driver, const Result<Stock>& r, int attempts) {
  if (!r.ok()) {
    std::printf("%s: %s\n", driver, r.status().ToString().c_str());
    return false;
  }
  std::printf("%s: %d in stock after %d attempts\n", driver, r->count, attempts);
  return r->count == 42 && attempts == 2;
}

Status ReadWithRetry(Inventory& inventory, const std::string& sku) {
  inventory.attempts = 0;
  // [snippet:retry]

  // Built once per destination, shared by every thread. Create returns a
  // Result; value() on bad options aborts with the message naming the field,
  // which suits fixed options known at startup (check ok() for user input).
  auto budget = TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}).value();
  auto policy = RetryPolicy::Create({
      .max_attempts = 3,
      .backoff = {.kind = BackoffKind::kExponential, .base = 100ms, .cap = 2s,
                  .jitter = Jitter::kFull},
      .min_attempt_time = 60ms,   // do not start an attempt that cannot finish
      .budget = budget}).value();

  // Each call says whether it may run twice: a read may; a charge may only
  // with an idempotency key (ctx.idempotency_key), never by a pipeline's flag.
  CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 1s), .idempotent = true};
  Result<Stock> r = ExecuteWithRetry(policy, ctx, [&](CallContext& attempt) -> Result<Stock> {
    return inventory.Get(sku, attempt.deadline, attempt.stop);  // attempt.attempt = 1, 2, 3
  });
  if (!r.ok()) return r.status();  // the last failure, or the policy that refused (source())
  // [end snippet]
  return Report("ExecuteWithRetry", r, inventory.attempts) ? Status::Ok() : Status::Internal("unexpected");
}

Status ReadThroughPipeline(Inventory& inventory, const std::shared_ptr<RetryBudget>& budget) {
  inventory.attempts = 0;
  CountingListener counters;
  CallContext ctx{.idempotent = true};  // a read: this call may run twice
  // [snippet:pipeline]
  auto pipeline = PipelineBuilder({.listener = &counters})
                      .AddFallback({.skip_when_remaining_below = 20ms})
                      .AddTimeout(1s)                        // overall, really cancels
                      .AddRetry({.max_attempts = 3, .budget = budget})
                      .AddCircuitBreaker({})
                      .AddBulkhead({.max_concurrent = 32})
                      .AddAttemptTimeout(300ms)
                      .Build();  // Result<PipelineRef>: -> aborts with the message if the order is invalid
  Result<Stock> r = pipeline->Execute(ctx, [&](CallContext& c) { return inventory.Get(c); });
  if (!r.ok()) return r.status();
  // [end snippet]
  if (!Report("Execute", r, inventory.attempts)) return Status::Internal("unexpected");

  // The same pipeline without a thread per waiting call: the backoff is a
  // timer, and the answer comes from whichever thread ends the call.
  inventory.attempts = 0;
  std::promise<Result<Stock>> answer;
  const auto Reply = [&](Result<Stock> result) { answer.set_value(std::move(result)); };
  // [snippet:async]
  pipeline->ExecuteAsync<Result<Stock>>(ctx,
      [&](CallContext& c, Completion<Result<Stock>> done) { inventory.GetAsync(c, std::move(done)); },
      [&](Result<Stock> stock) { Reply(std::move(stock)); });
  // [end snippet]
  std::future<Result<Stock>> reply = answer.get_future();
  if (reply.wait_for(5s) != std::future_status::ready) return Status::Internal("no answer within 5 s");
  return Report("ExecuteAsync", reply.get(), inventory.attempts) ? Status::Ok() : Status::Internal("unexpected");
}

}  // namespace

int main() {
  Inventory inventory;
  auto budget = TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}).value();
  Status s = ReadWithRetry(inventory, "A-7");
  if (s.ok()) s = ReadThroughPipeline(inventory, budget);
  if (!s.ok()) std::printf("%s\n", s.ToString().c_str());
  return s.ok() ? 0 : 1;
}
