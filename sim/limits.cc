#include "stormguard/sim/limits.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace stormguard::sim {

double Seconds(Duration d) noexcept { return std::chrono::duration<double>(d).count(); }

std::string Estimate(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

void CheckLimit(Validator& v, std::string_view field, double n, double limit, const std::string& what,
                std::string_view noun) {
  if (n <= limit) return;  // NaN fails this too
  v.Check(false, field,
          what + " makes " + Estimate(n) + " " + std::string(noun) + " (at most " + Estimate(limit) + ")");
}

double ChainAttempts(int layers, int retries) noexcept {
  double per_layer = 1, sum = 0;
  for (int k = 0; k < layers; ++k) {
    per_layer *= 1.0 + retries;
    sum += per_layer;
  }
  return sum;
}

double LoopSeconds(int retries, Duration timeout, Duration max_wait) noexcept {
  return (retries + 1.0) * Seconds(timeout) + retries * Seconds(max_wait);
}

void CheckBuckets(Validator& v, double span_s, Duration bucket, double series) {
  if (bucket <= Duration::zero()) return;  // the scenario's own check names that
  const double width = Seconds(bucket);
  CheckLimit(v, "bucket", (std::floor(span_s / width) + 1) * series, kMaxCounters,
             Estimate(width) + "s over up to " + Estimate(span_s) + "s in " + Estimate(series) + " time series",
             "counters");
}

}  // namespace stormguard::sim
