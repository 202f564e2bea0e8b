// A user's first pipeline: fallback, overall timeout, retry with a budget,
// circuit breaker, bulkhead and a per-attempt timeout around a flaky call.
// Build: part of the project build (build/pipeline_example).
#include <cstdio>

#include "stormguard/metrics/counters.h"
#include "stormguard/pipeline/pipeline.h"
#include "stormguard/retry/token_bucket_budget.h"

using namespace std::chrono_literals;
using namespace stormguard;

int main() {
  CountingListener counters;
  auto budget = TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}).value();
  auto pipeline = PipelineBuilder({.listener = &counters})
                      .AddFallback({.skip_when_remaining_below = 20ms})
                      .AddTimeout(1s)
                      .AddRetry({.max_attempts = 3,
                                 .backoff = {.base = 10ms, .cap = 100ms, .jitter = Jitter::kFull},
                                 .budget = budget})
                      .AddCircuitBreaker({})
                      .AddBulkhead({.max_concurrent = 32})
                      .AddAttemptTimeout(300ms)
                      .Build();
  if (!pipeline.ok()) {
    std::fprintf(stderr, "%s\n", pipeline.status().ToString().c_str());
    return 1;
  }
  int calls = 0;
  CallContext ctx{.idempotent = true};  // a read: this call may run twice
  Result<int> stock = pipeline->Execute(ctx, [&](CallContext& attempt) -> Result<int> {
    ++calls;  // the first two attempts fail like a flaky dependency
    if (attempt.attempt < 3) return Status::Unavailable("inventory: 503");
    return 42;
  });
  std::printf("stock %d after %d calls (%s)\n", stock.ok() ? *stock : -1, calls,
              stock.ok() ? "ok" : stock.status().ToString().c_str());
  return stock.ok() && *stock == 42 ? 0 : 1;
}
