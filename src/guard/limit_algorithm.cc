#include "stormguard/guard/limit_algorithm.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr int kBaselineWarmup = 10;      // plain mean of the first samples
constexpr double kMinGradient = 0.5;     // never cut the target by more than half
constexpr double kBaselineDecay = 0.95;  // once the baseline is 2x the latest RTT
// Below half, one drop would cut deeper than a retry storm warrants; 1 never backs off.
constexpr Range kBackoffRatioRange{0.5, 1.0, false, true};

void CheckLimits(Validator& v, int initial, int min, int max) {
  v.Check(min >= 1, "min_limit", "must be at least 1");
  v.Check(max >= min, "max_limit", "must be at least min_limit");
  v.Check(initial >= min && initial <= max, "initial_limit", "must be in [min_limit, max_limit]");
}

}  // namespace

std::vector<std::string> AimdLimitOptions::Validate() const {
  Validator v;
  CheckLimits(v, initial_limit, min_limit, max_limit);
  v.CheckRange(backoff_ratio, "backoff_ratio", kBackoffRatioRange);
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  return std::move(v).errors();
}

Result<AimdLimit> AimdLimit::Create(const AimdLimitOptions& options) {
  Status s = ValidationStatus("aimd limit options", options.Validate());
  if (!s.ok()) return s;
  return AimdLimit(options);
}

int AimdLimit::OnSample(TimePoint /*now*/, Duration rtt, int inflight, bool dropped) {
  if (dropped || rtt > o_.timeout) {
    limit_ = static_cast<int>(limit_ * o_.backoff_ratio);
  } else if (inflight * 2 >= limit_) {
    limit_ += 1;
  }
  limit_ = std::clamp(limit_, o_.min_limit, o_.max_limit);
  return limit_;
}

std::vector<std::string> GradientLimitOptions::Validate() const {
  Validator v;
  CheckLimits(v, initial_limit, min_limit, max_limit);
  v.CheckRange(smoothing, "smoothing", kPositiveFraction);
  v.Check(queue_size >= 0, "queue_size", "must not be negative");
  v.Check(std::isfinite(rtt_tolerance) && rtt_tolerance >= 1, "rtt_tolerance", "must be a finite number >= 1");
  v.Check(long_window >= 1, "long_window", "must be at least 1");
  return std::move(v).errors();
}

Result<GradientLimit> GradientLimit::Create(const GradientLimitOptions& options) {
  Status s = ValidationStatus("gradient limit options", options.Validate());
  if (!s.ok()) return s;
  return GradientLimit(options);
}

void GradientLimit::AddToBaseline(double rtt) noexcept {
  if (baseline_samples_ < kBaselineWarmup) {
    ++baseline_samples_;
    baseline_ += (rtt - baseline_) / baseline_samples_;
  } else {
    const double factor = 2.0 / (o_.long_window + 1);
    baseline_ = baseline_ * (1 - factor) + rtt * factor;
  }
}

int GradientLimit::OnSample(TimePoint /*now*/, Duration rtt, int inflight, bool dropped) {
  double gradient = kMinGradient;
  if (!dropped) {
    const double sample = static_cast<double>(std::max<Duration::rep>(rtt.count(), 1));
    AddToBaseline(sample);
    if (baseline_ > 2 * sample) baseline_ *= kBaselineDecay;
    // App-limited: the client, not the server, caps the load; no evidence.
    if (inflight * 2 < estimate_) return limit();
    gradient = std::clamp(o_.rtt_tolerance * baseline_ / sample, kMinGradient, 1.0);
  }
  const double target = estimate_ * gradient + o_.queue_size;
  estimate_ = std::clamp(estimate_ * (1 - o_.smoothing) + target * o_.smoothing, static_cast<double>(o_.min_limit),
                         static_cast<double>(o_.max_limit));
  return limit();
}

}  // namespace stormguard
