#include "stormguard/fleet/endpoint_load.h"

#include <cmath>

namespace stormguard {
namespace {

// e^-x for x >= 0 within 2%, without a call to exp on the pick path:
// 2^-(x / ln 2) = 2^-k x 2^-f, the fraction by a cubic.
double DecayFactor(double x) noexcept {
  const double y = x * 1.4426950408889634;
  if (!(y < 60)) return 0;  // NaN too
  const int k = static_cast<int>(y);
  const double f = y - k;
  return std::ldexp(1 - f * (0.6931471805599453 - f * (0.2402265069591007 - f * 0.0555041086648216)), -k);
}

}  // namespace

std::vector<std::string> EndpointLoadOptions::Validate() const {
  std::vector<std::string> errors;
  if (decay <= Duration::zero()) errors.emplace_back("decay: must be positive");
  if (initial_latency < Duration::zero()) errors.emplace_back("initial_latency: must be at least 0");
  if (!(weight > 0.0 && weight <= 1e6)) errors.emplace_back("weight: must be in (0, 1e6]");  // NaN fails too
  if (failure_penalty < Duration::zero()) errors.emplace_back("failure_penalty: must be at least 0");
  return errors;
}

EndpointLoad::EndpointLoad(const EndpointLoadOptions& o) noexcept
    : average_ns_(o.initial_latency.count()),
      decay_ns_(static_cast<double>(std::max(o.decay, Duration(1)).count())),
      inverse_weight_(o.weight > 0.0 ? 1.0 / o.weight : 1.0),
      failure_penalty_ns_(std::max(o.failure_penalty, Duration::zero()).count()) {}

double EndpointLoad::Cost(TimePoint now) const noexcept {
  double latency = static_cast<double>(average_ns_.load(std::memory_order_relaxed));
  const std::int64_t stamp = stamp_ns_.load(std::memory_order_relaxed);
  const std::int64_t elapsed = now.time_since_epoch().count() - stamp;
  if (stamp != 0 && elapsed > 0) latency *= DecayFactor(static_cast<double>(elapsed) / decay_ns_);
  return (latency + 1.0) * (outstanding_.load(std::memory_order_relaxed) + 1) * inverse_weight_;
}

void EndpointLoad::End(Duration latency, TimePoint now, bool failed) noexcept {
  outstanding_.fetch_sub(1, std::memory_order_relaxed);
  const std::int64_t sample = std::max<std::int64_t>(latency.count(), 0);
  const bool penalized = failed && sample < failure_penalty_ns_;
  const std::int64_t now_ns = now.time_since_epoch().count();
  const std::int64_t stamp = stamp_ns_.exchange(now_ns, std::memory_order_relaxed);
  // How much of the old average a sample leaves, by the time since the last
  // one; worked out only when needed (a peak, the common slow path, is not).
  double keep = -1;
  const auto toward = [&](std::int64_t from, std::int64_t to) {
    if (keep < 0) {
      keep = stamp == 0 ? 0.0 : std::exp(-static_cast<double>(std::max<std::int64_t>(now_ns - stamp, 0)) / decay_ns_);
    }
    return static_cast<std::int64_t>(static_cast<double>(from) * keep + static_cast<double>(to) * (1 - keep));
  };
  std::int64_t average = average_ns_.load(std::memory_order_relaxed);
  std::int64_t next = sample;
  do {
    // Slower, or the first answer: the peak counts at once; faster: move toward it.
    next = sample < average ? toward(average, sample) : sample;
    // A failure is at least its own latency, and moves toward the penalty.
    if (penalized) next = std::max(next, toward(average, failure_penalty_ns_));
  } while (!average_ns_.compare_exchange_weak(average, next, std::memory_order_relaxed));
}

}  // namespace stormguard
