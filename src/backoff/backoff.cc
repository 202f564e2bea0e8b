#include "stormguard/backoff/backoff.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

// E[w_n] = (base + growth * E[w_{n-1}]) / 2 with E[w_0] = base, solved in
// closed form so that any retry number costs O(1).
double DecorrelatedMean(double base, double growth, int n) noexcept {
  const double ratio = growth / 2;
  if (ratio == 1.0) return base * (1.0 + n / 2.0);
  const double fixed_point = base / (2 - growth);
  return fixed_point + (base - fixed_point) * std::pow(ratio, n);
}

}  // namespace

std::string_view BackoffKindName(BackoffKind k) noexcept {
  switch (k) {
    case BackoffKind::kConstant: return "constant";
    case BackoffKind::kLinear: return "linear";
    case BackoffKind::kExponential: return "exponential";
  }
  return "unknown";
}

std::string_view JitterName(Jitter j) noexcept {
  switch (j) {
    case Jitter::kNone: return "none";
    case Jitter::kFull: return "full";
    case Jitter::kEqual: return "equal";
    case Jitter::kDecorrelated: return "decorrelated";
    case Jitter::kProportional: return "proportional";
    case Jitter::kUniform: return "uniform";
  }
  return "unknown";
}

std::vector<std::string> BackoffOptions::Validate() const {
  Validator v;
  v.Check(base >= Duration::zero(), "base", "must not be negative");
  v.Check(step >= Duration::zero(), "step", "must not be negative");
  v.Check(cap > Duration::zero(), "cap", "must be positive");
  v.Check(cap >= base, "cap", "must be at least base");
  v.Check(std::isfinite(multiplier) && multiplier >= 1.0, "multiplier", "must be a finite number >= 1");
  v.CheckRange(proportion, "proportion", kFraction);
  v.Check(spread >= Duration::zero(), "spread", "must not be negative");
  v.Check(std::isfinite(decorrelated_growth) && decorrelated_growth > 1.0, "decorrelated_growth",
          "must be a finite number > 1");
  v.Check(!(jitter == Jitter::kDecorrelated && base <= Duration::zero()), "base",
          "must be positive for decorrelated jitter");
  return std::move(v).errors();
}

Result<Backoff> Backoff::Create(const BackoffOptions& options) {
  Status s = ValidationStatus("backoff options", options.Validate());
  if (!s.ok()) return s;
  return Backoff(options);
}

Duration Backoff::Ceiling(int retry) const noexcept {
  const int n = std::max(retry, 1);
  const double base = static_cast<double>(o_.base.count());
  double wait = base;
  switch (o_.kind) {
    case BackoffKind::kConstant: break;
    case BackoffKind::kLinear: {
      const double step = static_cast<double>((o_.step > Duration::zero() ? o_.step : o_.base).count());
      wait = base + step * (n - 1);
      break;
    }
    case BackoffKind::kExponential:
      // pow() overflows to +inf for huge n; the comparison below caps it.
      // A zero base stays zero (0 * inf would be NaN, which the cap check
      // would turn into the cap).
      if (base > 0) wait = base * std::pow(o_.multiplier, n - 1);
      break;
  }
  const double cap = static_cast<double>(o_.cap.count());
  if (!(wait < cap)) return o_.cap;
  return Duration(static_cast<Duration::rep>(wait));
}

Duration Backoff::Next(int retry, Duration previous, Random& rng) const noexcept {
  const Duration b = Ceiling(retry);
  switch (o_.jitter) {
    case Jitter::kNone: return b;
    case Jitter::kFull: return rng.UniformDuration(Duration::zero(), b);
    case Jitter::kEqual: return b / 2 + rng.UniformDuration(Duration::zero(), b - b / 2);
    case Jitter::kDecorrelated: {
      const Duration prev = std::max(previous, o_.base);
      const Duration hi = std::min(o_.cap, SaturatingScale(prev, o_.decorrelated_growth));
      return std::min(o_.cap, rng.UniformDuration(o_.base, std::max(hi, o_.base)));
    }
    case Jitter::kProportional: {
      const auto [lo, hi] = Range(retry);
      return rng.UniformDuration(lo, hi);
    }
    case Jitter::kUniform: {
      const auto [lo, hi] = Range(retry);
      return rng.UniformDuration(lo, hi);
    }
  }
  return b;
}

std::pair<Duration, Duration> Backoff::Range(int retry) const noexcept {
  const Duration b = Ceiling(retry);
  switch (o_.jitter) {
    case Jitter::kNone: return {b, b};
    case Jitter::kFull: return {Duration::zero(), b};
    case Jitter::kEqual: return {b / 2, b};
    case Jitter::kDecorrelated: {
      // The upper end grows by `growth` per retry from base, capped.
      Duration hi = o_.base;
      for (int i = 0; i < std::max(retry, 1) && hi < o_.cap; ++i) {
        const Duration next = std::min(o_.cap, SaturatingScale(hi, o_.decorrelated_growth));
        if (next == hi) break;  // too small to grow at nanosecond resolution
        hi = next;
      }
      return {std::min(o_.base, o_.cap), hi};
    }
    case Jitter::kProportional:
      return {SaturatingScale(b, 1.0 - o_.proportion), std::min(o_.cap, SaturatingScale(b, 1.0 + o_.proportion))};
    case Jitter::kUniform:
      return {b > o_.spread ? b - o_.spread : Duration::zero(), std::min(o_.cap, SaturatingAdd(b, o_.spread))};
  }
  return {b, b};
}

Duration Backoff::Expected(int retry) const noexcept {
  if (o_.jitter == Jitter::kDecorrelated) {
    // A draw is uniform in [base, min(cap, growth * previous)]. The uncapped
    // chain mean is exact; min() is concave and the capped chain is never
    // above the uncapped one, so capping the previous mean's upper end gives
    // an upper bound, exact while the cap cuts no draw short.
    const double base = static_cast<double>(o_.base.count());
    const double cap = static_cast<double>(o_.cap.count());
    const double previous = DecorrelatedMean(base, o_.decorrelated_growth, std::max(retry, 1) - 1);
    const double mean = (base + std::min(cap, o_.decorrelated_growth * previous)) / 2;
    // Compared as doubles: the cap may be Duration::max(), 2^63 as a double.
    if (!(mean < cap)) return o_.cap;
    return Duration(static_cast<Duration::rep>(mean));
  }
  const auto [lo, hi] = Range(retry);
  return lo + (hi - lo) / 2;
}

}  // namespace stormguard
