#include "stormguard/hedge/adaptive_timeout.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> AdaptiveTimeoutOptions::Validate() const {
  Validator v;
  v.CheckRange(quantile, "quantile", kPositiveFraction);
  v.Check(std::isfinite(factor) && factor >= 1.0, "factor",
          "must be a finite number >= 1, got " + std::to_string(factor));
  v.Check(min > Duration::zero(), "min", "must be positive");
  v.Check(max >= min, "max", "must be at least min");
  v.Check(warmup > Duration::zero(), "warmup", "must be positive");
  v.Check(refresh >= Duration::zero(), "refresh", "must not be negative");
  return std::move(v).errors();
}

Result<std::shared_ptr<AdaptiveTimeout>> AdaptiveTimeout::Create(AdaptiveTimeoutOptions options) {
  // The tracker is not configuration (as HedgeOptions::latency): Validate()
  // leaves it to whoever builds the timeout, checked here.
  std::vector<std::string> errors = options.Validate();
  if (options.latency == nullptr) errors.insert(errors.begin(), "latency: must be set (the samples it follows)");
  Status s = ValidationStatus("adaptive timeout options", errors);
  if (!s.ok()) return s;
  return std::shared_ptr<AdaptiveTimeout>(new AdaptiveTimeout(std::move(options)));
}

AdaptiveTimeout::AdaptiveTimeout(AdaptiveTimeoutOptions o) noexcept : o_(std::move(o)), current_(o_.warmup) {}

Duration AdaptiveTimeout::Compute(TimePoint now) const noexcept {
  const std::optional<Duration> q = o_.latency->Quantile(o_.quantile, now);
  if (!q) return o_.warmup;
  return std::clamp(SaturatingScale(*q, o_.factor), o_.min, o_.max);
}

Duration AdaptiveTimeout::Current(TimePoint now) const noexcept {
  return current_.Get(now, o_.refresh, [this](TimePoint t) { return Compute(t); });
}

Duration AdaptiveTimeout::TimeoutFor(TimePoint now, Duration remaining) const noexcept {
  return std::min(Current(now), std::max(remaining, Duration::zero()));
}

void AdaptiveTimeout::RecordAttempt(const AttemptSample& a, TimePoint now) const noexcept {
  if (a.timed_out) {
    o_.latency->Record(std::max(a.elapsed, a.given), now);
  } else if (a.ok && o_.record_successes) {
    o_.latency->Record(a.elapsed, now);
  }
}

}  // namespace stormguard
