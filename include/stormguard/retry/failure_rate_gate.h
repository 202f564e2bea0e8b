// stormguard/retry/failure_rate_gate.h: a retry circuit breaker (docs/retry-budgets.md).
//
// Successes and failures are counted in ten one-second buckets (a sliding
// window of 10 s, core/rolling_counter.h). While the window's failure rate
// is above `failure_rate_threshold` (10%), no retry may start; once the
// failing seconds slide out and the rate drops, retries are allowed again.
// With every layer gated this way, a caller adds at most ~10% retries to
// its traffic (upstream load <= 1.1x).
//
//   auto gate = FailureRateGate::Create({.window = 10s, .buckets = 10,
//                                        .failure_rate_threshold = 0.1});
//   (*gate)->RecordFailure(now);
//   if ((*gate)->TryAcquireRetry(now)) { /* retry */ }
//
// Units: failure_rate_threshold is a fraction in [0, 1] (0.1 = 10%), kept
// to a millionth.
//
// Rules, exactly:
//   - closed (no retries) when failures / (successes + failures) >
//     failure_rate_threshold, strictly: at exactly 10% retries still go;
//   - open regardless of the rate while the window holds fewer than
//     `min_requests` outcomes. The plain rule has no floor; without one a
//     client's very first failure is a 100% failure rate and would forbid
//     retries for the next 10 s. The default, 10, keeps that from
//     happening while still bounding retries at low traffic to under 10
//     per window. Set it to 0 for the plain rule.
//   - TryAcquireRetry charges nothing; a retry's own outcome is recorded
//     like any other attempt's.
//
// Thread safety: lock-free. Recording is one atomic add on the calling
// thread's own stripe; TryAcquireRetry only reads (four words per stripe,
// whatever the bucket count). An outcome recorded just as a new second
// begins may be counted in the neighbouring second.
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

struct FailureRateGateOptions {
  Duration window = std::chrono::seconds(10);
  int buckets = 10;                     // the window is split into this many buckets
  double failure_rate_threshold = 0.1;  // in [0, 1]; retries stop above it
  int min_requests = 10;                // outcomes needed before the rate counts; >= 0
  int stripes = 0;                      // see ResolveStripes()

  std::vector<std::string> Validate() const;
};

class FailureRateGate final : public RetryBudget {
 public:
  static Result<std::shared_ptr<FailureRateGate>> Create(const FailureRateGateOptions& options = {});

  std::string_view name() const noexcept override { return "failure_rate_gate"; }
  void RecordSuccess(TimePoint now) noexcept override;
  void RecordFailure(TimePoint now) noexcept override;
  bool TryAcquireRetry(TimePoint now) noexcept override;

  // {successes, failures} within the window.
  RollingCounts counts(TimePoint now) const noexcept { return window_.Sum(now); }
  // failures / (successes + failures) in the window; 0 when it is empty.
  double FailureRate(TimePoint now) const noexcept;
  const FailureRateGateOptions& options() const noexcept { return options_; }

 private:
  FailureRateGate(const FailureRateGateOptions& options, RollingCounter window);

  FailureRateGateOptions options_;
  std::int64_t threshold_ppm_;  // failure_rate_threshold in millionths
  RollingCounter window_;       // {successes, failures}
};

}  // namespace stormguard
