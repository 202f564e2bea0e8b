#include "stormguard/fleet/outlier_detection.h"

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr Duration kLongestInterval = std::chrono::hours(1);
constexpr Duration kLongestEjection = std::chrono::hours(24);

}  // namespace

std::vector<std::string> OutlierDetectionOptions::Validate() const {
  Validator v;
  v.Check(consecutive_failures >= 0 && consecutive_failures <= 1'000'000, "consecutive_failures",
          "must be in [0, 1000000] (0: off)");
  v.Check(interval > Duration::zero() && interval <= kLongestInterval, "interval", "must be in (0, 1h]");
  v.Check(base_ejection_time > Duration::zero() && base_ejection_time <= kLongestInterval, "base_ejection_time",
          "must be in (0, 1h]");
  v.Check(max_ejection_time >= base_ejection_time && max_ejection_time <= kLongestEjection, "max_ejection_time",
          "must be in [base_ejection_time, 24h]");
  v.CheckRange(max_ejection_percent, "max_ejection_percent", Range{0.0, 100.0});
  v.CheckRange(success_rate_stdev_factor, "success_rate_stdev_factor", Range{0.0, 100.0});
  v.Check(success_rate_minimum_hosts >= 1 && success_rate_minimum_hosts <= 10000, "success_rate_minimum_hosts",
          "must be in [1, 10000]");
  v.Check(success_rate_request_volume >= 1 && success_rate_request_volume <= 1'000'000'000,
          "success_rate_request_volume", "must be in [1, 1000000000]");
  return std::move(v).errors();
}

}  // namespace stormguard
