#include "stormguard/retry/failure_rate_gate.h"

#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> FailureRateGateOptions::Validate() const {
  // The window's own rules use the same field names as these options.
  std::vector<std::string> errors =
      RollingCounterOptions{.window = window, .buckets = buckets, .stripes = stripes}.Validate();
  Validator v;
  v.CheckRange(failure_rate_threshold, "failure_rate_threshold", kFraction);
  v.Check(min_requests >= 0, "min_requests", "must not be negative");
  for (auto& e : std::move(v).errors()) errors.push_back(std::move(e));
  return errors;
}

Result<std::shared_ptr<FailureRateGate>> FailureRateGate::Create(const FailureRateGateOptions& options) {
  Status s = ValidationStatus("failure rate gate options", options.Validate());
  if (!s.ok()) return s;
  auto window =
      RollingCounter::Create({.window = options.window, .buckets = options.buckets, .stripes = options.stripes});
  if (!window.ok()) return std::move(window).status();
  return std::shared_ptr<FailureRateGate>(new FailureRateGate(options, std::move(window).value()));
}

FailureRateGate::FailureRateGate(const FailureRateGateOptions& options, RollingCounter window)
    : options_(options),
      threshold_ppm_(std::llround(options.failure_rate_threshold * 1e6)),
      window_(std::move(window)) {}

void FailureRateGate::RecordSuccess(TimePoint now) noexcept { window_.Add(now, {1, 0}); }
void FailureRateGate::RecordFailure(TimePoint now) noexcept { window_.Add(now, {0, 1}); }

bool FailureRateGate::TryAcquireRetry(TimePoint now) noexcept {
  const RollingCounts c = window_.Sum(now);
  const std::int64_t total = c[0] + c[1];
  if (total < options_.min_requests) return true;
  // failures / total > threshold, in integers so 10 of 100 is exactly 10%.
  return c[1] * 1'000'000 <= threshold_ppm_ * total;
}

double FailureRateGate::FailureRate(TimePoint now) const noexcept {
  const RollingCounts c = window_.Sum(now);
  const std::int64_t total = c[0] + c[1];
  return total == 0 ? 0.0 : static_cast<double>(c[1]) / static_cast<double>(total);
}

}  // namespace stormguard
