// stormguard/sim/limits.h: how much work and memory a scenario may ask for.
//
// Every scenario's Validate() estimates, from its options alone, an upper
// bound on what its run will need and refuses options past these limits, so
// no combination of values runs for hours or exhausts memory:
//
//   counters     the run's longest possible span / the bucket width, times
//                the time series of all runs (one counter per bucket each)
//   attempts     calls made to services, all runs of a scenario together
//                (each is a handful of events: the time a scenario takes)
//   live calls   requests and attempts in flight at one instant in a run
//                (each holds a few hundred bytes until it ends)
//
//   Validator v;
//   CheckBuckets(v, /*span_s=*/4 * 3600.0, o.bucket, /*series=*/35);
//   // "bucket: 1e-09s over up to 1.44e+04s in 35 time series makes 5.04e+14 counters (at most 1e+07)"
//
// Estimates are doubles, so no sum or product of options overflows, and an
// infinite or NaN estimate is refused. Thread safety: plain functions.
#pragma once

#include <string>
#include <string_view>

#include "stormguard/core/time.h"
#include "stormguard/core/validation.h"

namespace stormguard::sim {

inline constexpr double kMaxCounters = 10'000'000;
inline constexpr double kMaxAttempts = 50'000'000;
inline constexpr double kMaxLiveCalls = 2'000'000;

// d in seconds, as a double.
double Seconds(Duration d) noexcept;

// "1.44e+13", "27", "0.5": a number for a message, three digits.
std::string Estimate(double x);

// Adds "<field>: <what> makes <n> <noun> (at most <limit>)" unless n <= limit.
void CheckLimit(Validator& v, std::string_view field, double n, double limit, const std::string& what,
                std::string_view noun);

// Calls all `layers` of a chain make for one request when each layer tries
// 1 + `retries` times: (1 + r) + (1 + r)^2 + ... + (1 + r)^layers.
double ChainAttempts(int layers, int retries) noexcept;

// Seconds a retry loop of 1 + `retries` attempts can last when each attempt
// ends by `timeout` and each wait is at most `max_wait`.
double LoopSeconds(int retries, Duration timeout, Duration max_wait) noexcept;

// `bucket` must not cut `span_s` seconds, in each of `series` time series,
// into more than kMaxCounters counters.
void CheckBuckets(Validator& v, double span_s, Duration bucket, double series);

}  // namespace stormguard::sim
