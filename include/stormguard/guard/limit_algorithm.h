// stormguard/guard/limit_algorithm.h: how an adaptive concurrency limit moves.
//
// A LimitAlgorithm is told about every finished request (its round-trip
// time, how many requests were in flight when it started, whether it was
// dropped: timed out or refused as overloaded) and answers with the new
// concurrency limit. The AdaptiveLimiter (adaptive_concurrency.h) enforces
// it. Two algorithms, both from Netflix concurrency-limits, always clamped to
// [min_limit, max_limit]:
//
// AIMD (loss based, like TCP Reno):
//   drop, or rtt > timeout          limit = floor(limit * backoff_ratio)
//   success, inflight*2 >= limit    limit = limit + 1
//   success, fewer in flight        unchanged (the app, not the server, is
//                                   the bottleneck: no evidence to grow)
//
// Gradient (Netflix Gradient2, latency based): a long-term RTT baseline (the
// mean of the first 10 samples, then an exponential average over
// `long_window` samples, factor 2 / (long_window + 1)) against the latest
// sample:
//   gradient = clamp(rtt_tolerance * baseline / rtt, 0.5, 1)
//   target   = limit * gradient + queue_size
//   limit    = limit * (1 - smoothing) + target * smoothing
// A steady latency grows the limit by queue_size * smoothing per sample; a
// latency above rtt_tolerance x baseline shrinks it (at most halving the
// target). When the baseline is more than twice the latest sample (load has
// passed), the baseline decays by 5% per sample so it recovers quickly.
// No change while fewer than half the limit are in flight.
// Our addition: a dropped request counts as the floor gradient 0.5 (Netflix
// ignores the drop flag here) and its RTT, a timeout rather than a service
// time, stays out of the baseline.
//
//   auto aimd = AimdLimit::Create({.initial_limit = 10, .min_limit = 1});
//   int limit = aimd->OnSample(now, 12ms, /*inflight=*/8, /*dropped=*/false);
//
// Defaults are Netflix's. Thread safety: none; the AdaptiveLimiter
// serialises calls to OnSample.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard {

class LimitAlgorithm {
 public:
  virtual ~LimitAlgorithm() = default;

  virtual std::string_view name() const noexcept = 0;

  // The current limit (the initial one before any sample).
  virtual int limit() const noexcept = 0;

  // One finished request; returns the new limit.
  virtual int OnSample(TimePoint now, Duration rtt, int inflight, bool dropped) = 0;
};

// Units: backoff_ratio and smoothing are fractions (0.9 keeps 90% of the
// limit on a drop); rtt_tolerance is a ratio of latencies (1.5 = 50% slower).
struct AimdLimitOptions {
  int initial_limit = 20;
  int min_limit = 20;
  int max_limit = 200;
  double backoff_ratio = 0.9;                  // kept on a drop: a fraction in [0.5, 1)
  Duration timeout = std::chrono::seconds(5);  // a slower sample counts as a drop

  std::vector<std::string> Validate() const;
};

class AimdLimit final : public LimitAlgorithm {
 public:
  static Result<AimdLimit> Create(const AimdLimitOptions& options);

  std::string_view name() const noexcept override { return "aimd"; }
  int limit() const noexcept override { return limit_; }
  int OnSample(TimePoint now, Duration rtt, int inflight, bool dropped) override;

 private:
  explicit AimdLimit(const AimdLimitOptions& o) noexcept : o_(o), limit_(o.initial_limit) {}

  AimdLimitOptions o_;
  int limit_;
};

struct GradientLimitOptions {
  int initial_limit = 20;
  int min_limit = 20;
  int max_limit = 200;
  double smoothing = 0.2;      // in (0, 1]: share of the new estimate taken per sample
  int queue_size = 4;          // >= 0: growth allowance per sample before smoothing
  double rtt_tolerance = 1.5;  // >= 1: latency increase accepted before shrinking
  int long_window = 600;       // >= 1 samples in the baseline's exponential average

  std::vector<std::string> Validate() const;
};

class GradientLimit final : public LimitAlgorithm {
 public:
  static Result<GradientLimit> Create(const GradientLimitOptions& options);

  std::string_view name() const noexcept override { return "gradient"; }
  int limit() const noexcept override { return static_cast<int>(estimate_); }
  int OnSample(TimePoint now, Duration rtt, int inflight, bool dropped) override;

  // The long-term RTT the latest samples are compared with.
  Duration baseline() const noexcept { return Duration(static_cast<Duration::rep>(baseline_)); }

 private:
  explicit GradientLimit(const GradientLimitOptions& o) noexcept : o_(o), estimate_(o.initial_limit) {}

  void AddToBaseline(double rtt) noexcept;

  GradientLimitOptions o_;
  double estimate_;
  double baseline_ = 0;  // ns
  int baseline_samples_ = 0;
};

}  // namespace stormguard
