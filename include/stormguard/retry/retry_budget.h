// stormguard/retry/retry_budget.h: caps retries as a share of real traffic.
//
// A retry budget is shared by every call to one destination. It is told
// about requests and their outcomes and answers one question: may one more
// retry go out now? When the destination fails broadly, successes stop
// refilling the budget and retries switch themselves off (with 50%
// failures at 1000 rps, 10 tokens are gone in about 20 ms).
//
// Implementations (retry/budgets.h): TokenBucketBudget (docs/retry-budgets.md),
// GrpcThrottleBudget (gRPC retryThrottling), RatioBudget (Finagle/tower),
// ConcurrencyBudget (Envoy), FailureRateGate (10% failures in 10 s).
//
// Protocol, as the retry driver follows it:
//   OnRequestStart(now)        once per logical request, before attempt 1
//   RecordSuccess/Failure(now) after every attempt; "failure" means an
//                              outcome the retry policy would retry
//                              (transient, overloaded, ambiguous); any
//                              other answer shows a healthy server
//   TryAcquireRetry(now)       before every retry; true charges the budget
//   OnRetryEnd(now)            after each retry that TryAcquireRetry allowed
//   OnRequestEnd(now)          once, when the logical request is finished
//
// Thread safety: every method is thread-safe; the success path
// (OnRequestStart, RecordSuccess, OnRequestEnd) takes no lock.
#pragma once

#include <string_view>

#include "stormguard/core/time.h"

namespace stormguard {

class RetryBudget {
 public:
  virtual ~RetryBudget() = default;

  virtual std::string_view name() const noexcept = 0;

  virtual void OnRequestStart(TimePoint /*now*/) noexcept {}
  virtual void OnRequestEnd(TimePoint /*now*/) noexcept {}
  virtual void RecordSuccess(TimePoint now) noexcept = 0;
  virtual void RecordFailure(TimePoint now) noexcept = 0;
  virtual bool TryAcquireRetry(TimePoint now) noexcept = 0;
  virtual void OnRetryEnd(TimePoint /*now*/) noexcept {}
};

}  // namespace stormguard
