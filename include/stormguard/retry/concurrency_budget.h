// stormguard/retry/concurrency_budget.h: Envoy's retry budget.
//
// Limits retries in flight, not retries over time: a retry may start while
// the outstanding retries are fewer than
//     max(retry_fraction x active requests, min_retry_concurrency)
// (the product rounded down). Active requests are those between
// OnRequestStart and OnRequestEnd; an outstanding retry is one that
// TryAcquireRetry granted and OnRetryEnd has not yet returned. Envoy's
// defaults: 20% and 3, so 100 active requests allow 20 concurrent retries
// and a quiet client still gets 3.
//
// Units: retry_fraction is a fraction of the active requests in [0, 1],
// kept to a millionth; Envoy's budget_percent = 20 (percent) is 0.2.
//
//   auto budget = ConcurrencyBudget::Create({.retry_fraction = 0.2, .min_retry_concurrency = 3});
//   (*budget)->OnRequestStart(now);
//   if ((*budget)->TryAcquireRetry(now)) { /* retry */ (*budget)->OnRetryEnd(now); }
//   (*budget)->OnRequestEnd(now);
//
// Outcomes do not matter here (RecordSuccess/RecordFailure do nothing).
// Thread safety: lock-free. Both counts are striped per thread, so the
// success path (start + end) touches only the caller's own cache line.
// TryAcquireRetry takes a slot first and checks after, giving it back if it
// overshot: under contention it may refuse a retry that would have fit,
// never grant one that does not.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/striped_counter.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard {

struct ConcurrencyBudgetOptions {
  double retry_fraction = 0.2;    // of active requests, in [0, 1]
  int min_retry_concurrency = 3;  // >= 0
  int stripes = 0;                // see ResolveStripes()

  std::vector<std::string> Validate() const;
};

class ConcurrencyBudget final : public RetryBudget {
 public:
  static Result<std::shared_ptr<ConcurrencyBudget>> Create(const ConcurrencyBudgetOptions& options = {});

  std::string_view name() const noexcept override { return "concurrency"; }
  void OnRequestStart(TimePoint now) noexcept override;
  void OnRequestEnd(TimePoint now) noexcept override;
  void RecordSuccess(TimePoint now) noexcept override;
  void RecordFailure(TimePoint now) noexcept override;
  bool TryAcquireRetry(TimePoint now) noexcept override;
  void OnRetryEnd(TimePoint now) noexcept override;

  std::int64_t active_requests() const noexcept { return active_.Sum(); }
  std::int64_t outstanding_retries() const noexcept { return outstanding_.Sum(); }
  // The most retries that may be outstanding with `active` requests.
  std::int64_t RetryLimit(std::int64_t active) const noexcept;
  const ConcurrencyBudgetOptions& options() const noexcept { return options_; }

 private:
  explicit ConcurrencyBudget(const ConcurrencyBudgetOptions& options);

  ConcurrencyBudgetOptions options_;
  std::int64_t fraction_ppm_;  // retry_fraction in millionths
  StripedCounter active_;
  StripedCounter outstanding_;
};

}  // namespace stormguard
