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

namespace {

// Recovery (see the header): the newest two fifths of the window, judged on
// a quantile a few hundred samples estimate well, and how far it must fall.
constexpr double kShiftQuantile = 0.99;
constexpr std::int64_t kShiftMinSamples = 100;
constexpr double kShiftRatio = 2.0;

int RecentSlices(const LatencyTracker& t) { return std::max(1, (t.options().slices * 2 + 4) / 5); }

}  // namespace

Duration AdaptiveTimeout::Compute(TimePoint now) const noexcept {
  const LatencyTracker& tracker = *o_.latency;
  const LatencySnapshot window = tracker.Snapshot(now);
  std::optional<Duration> q = window.Quantile(o_.quantile, tracker.options().min_samples);
  if (!q) return o_.warmup;
  const LatencySnapshot recent = tracker.Snapshot(now, RecentSlices(tracker));
  const std::optional<Duration> recent_shift = recent.Quantile(kShiftQuantile, kShiftMinSamples);
  const std::optional<Duration> window_shift = window.Quantile(kShiftQuantile, kShiftMinSamples);
  if (recent_shift && window_shift &&
      recent_shift->count() * kShiftRatio <= static_cast<double>(window_shift->count())) {
    q = std::min(*q, *recent.Quantile(o_.quantile, 1));  // the latency fell: the older samples are history
  }
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
