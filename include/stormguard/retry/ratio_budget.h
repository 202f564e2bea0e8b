// stormguard/retry/ratio_budget.h: retries as a share of recent requests
// (Finagle's RetryBudget, tower's TpsBudget).
//
// Every request deposits `retry_ratio` of a retry; deposits expire
// after `ttl`. A retry withdraws one whole retry. On top, a reserve of
// `min_retries_per_second * ttl` retries is always there within any ttl, so
// a client with little traffic can still retry. Withdrawals expire after
// ttl too, which gives the reserve back. With the defaults (ttl 10 s, 20%,
// 10/s) a client may add 20% retries to its traffic, plus 100 retries per
// 10 s.
//
//   auto budget = RatioBudget::Create({.ttl = 10s, .min_retries_per_second = 10,
//                                      .retry_ratio = 0.2});
//   (*budget)->OnRequestStart(now);                  // deposit
//   if ((*budget)->TryAcquireRetry(now)) { /* retry */ }
//
// Units: retry_ratio is retries per request, a fraction (0.2 = 20%) that
// may exceed 1, in [0, 1000]. Finagle's percentCanRetry and tower's
// retry_percent are the same fraction under a percent name.
//
// Accounting is in integers: a request deposits retry_ratio x 1000
// units (three decimals kept, the rest cut), a retry costs 1000 units. The
// ttl is split into `buckets` time buckets (core/rolling_counter.h), so a
// deposit expires between ttl - ttl/buckets and ttl after it was made.
//
// Thread safety: every method is lock-free; OnRequestStart is one atomic
// add on the calling thread's own stripe. TryAcquireRetry withdraws first
// and checks the balance after, giving the retry back if it overdrew: it
// may refuse a retry while a concurrent one is being given back, but racing
// callers never overdraw together. (A give-back that races the start of a
// new bucket may leave one retry of slack for one bucket width; see
// core/rolling_counter.h.)
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/rolling_counter.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard {

struct RatioBudgetOptions {
  Duration ttl = std::chrono::seconds(10);  // in [1 s, 60 s], as Finagle and tower
  double min_retries_per_second = 10;       // in [0, 1e6]
  double retry_ratio = 0.2;                 // retries per request, in [0, 1000]
  int buckets = 10;                         // ttl is split into this many buckets
  int stripes = 0;                          // see ResolveStripes()

  std::vector<std::string> Validate() const;
};

class RatioBudget final : public RetryBudget {
 public:
  static Result<std::shared_ptr<RatioBudget>> Create(const RatioBudgetOptions& options = {});

  std::string_view name() const noexcept override { return "ratio"; }
  void OnRequestStart(TimePoint now) noexcept override;
  void RecordSuccess(TimePoint now) noexcept override;
  void RecordFailure(TimePoint now) noexcept override;
  bool TryAcquireRetry(TimePoint now) noexcept override;

  // How many retries TryAcquireRetry(now) would still grant (may be
  // fractional, never negative).
  double balance(TimePoint now) const noexcept;
  // {requests, granted retries} within the ttl.
  RollingCounts counts(TimePoint now) const noexcept { return window_.Sum(now); }
  const RatioBudgetOptions& options() const noexcept { return options_; }

 private:
  RatioBudget(const RatioBudgetOptions& options, RollingCounter window);
  std::int64_t BalanceUnits(const RollingCounts& c) const noexcept;

  RatioBudgetOptions options_;
  std::int64_t deposit_units_;  // per request
  std::int64_t reserve_units_;  // min_retries_per_second * ttl retries
  RollingCounter window_;       // {requests, retries}
};

}  // namespace stormguard
