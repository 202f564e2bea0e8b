// stormguard/retry/budgets.h: every retry budget in one include.
//
//   TokenBucketBudget   successes earn tokens, retries spend them
//   GrpcThrottleBudget  gRPC retryThrottling: failures spend, retry above half
//   RatioBudget         Finagle / tower: retries as a share of recent requests
//   ConcurrencyBudget   Envoy: retries in flight as a share of active requests
//   FailureRateGate     no retries while the 10 s failure rate > 10%
//
// All implement RetryBudget (retry/retry_budget.h), are made by a validating
// static Create() that returns Result<std::shared_ptr<...>> (one budget is
// shared by every call to a destination), and are thread-safe. The guards
// (breaker, bulkhead, rate limiter, adaptive limiter) are made the same way;
// value policies (RetryPolicy, Backoff, ...) return Result<T>.
#pragma once

#include "stormguard/retry/concurrency_budget.h"
#include "stormguard/retry/failure_rate_gate.h"
#include "stormguard/retry/grpc_throttle_budget.h"
#include "stormguard/retry/ratio_budget.h"
#include "stormguard/retry/retry_budget.h"
#include "stormguard/retry/token_bucket_budget.h"
