// stormguard/sim/adaptive_timeout_scenario.h: a fixed per-attempt timeout
// against an adaptive one when a destination slows down for everyone.
//
// Callers send `rate` requests per second, evenly spaced, each a retry loop
// (RetryPolicy: `max_attempts`, full-jitter backoff) under a `deadline`.
// The destination answers in `healthy` (normal, 20% spread) except during
// the degraded phase, when every answer takes `degraded` (same spread).
// Each attempt runs under the per-attempt timeout of its mode:
//   fixed     `fixed_timeout`, tuned for the healthy latency;
//   adaptive  AdaptiveTimeout over a LatencyTracker (`adaptive`), fed as the
//             attempt timeout stage feeds it: successes as their latency,
//             attempts cut off by it as the timeout they were given.
// With the fixed timeout every degraded attempt times out and is retried:
// attempts per call jump to max_attempts and success falls to ~0 (the storm).
// The adaptive one climbs by `factor` per refresh to cover the new latency.
//
//   auto r = sim::RunAdaptiveTimeoutScenario({});
//   r->modes[0].phases[1].success_rate;  // fixed, degraded: ~0
//   r->modes[1].phases[1].success_rate;  // adaptive, degraded: ~1
//
// Same options and seed, same result. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/hedge/adaptive_timeout.h"

namespace stormguard::sim {

struct AdaptiveTimeoutScenarioOptions {
  double rate = 200;                                       // requests per second
  Duration phase = std::chrono::seconds(10);               // each of healthy, degraded, recovered
  Duration healthy = std::chrono::milliseconds(10);        // median answer time, healthy
  Duration degraded = std::chrono::milliseconds(300);      // median answer time, degraded
  Duration fixed_timeout = std::chrono::milliseconds(50);  // the fixed mode's timeout
  int max_attempts = 3;
  Duration deadline = std::chrono::seconds(2);  // each request's whole budget
  // The adaptive mode's options (its tracker is made per run, `window` wide).
  AdaptiveTimeoutOptions adaptive{.quantile = 0.999,
                                  .factor = 2,
                                  .min = std::chrono::milliseconds(5),
                                  .max = std::chrono::seconds(1),
                                  .warmup = std::chrono::milliseconds(50),
                                  .refresh = std::chrono::milliseconds(100)};
  Duration window = std::chrono::seconds(10);
  Duration sample_every = std::chrono::seconds(1);  // the adaptive timeout's value over time
  std::uint64_t seed = 1;

  std::vector<std::string> Validate() const;
};

struct PhaseStats {
  std::string name;  // "healthy", "degraded", "recovered"
  std::int64_t calls = 0;
  std::int64_t succeeded = 0;
  std::int64_t attempts = 0;
  std::int64_t timeouts = 0;        // attempts the per-attempt timeout cut off
  Duration p50 = Duration::zero();  // call latency, start to final answer
  Duration p99 = Duration::zero();
  Duration min_timeout = Duration::zero();  // the timeouts attempts got
  Duration max_timeout = Duration::zero();

  double success_rate() const noexcept;
  double attempts_per_call() const noexcept;
};

struct ModeResult {
  std::string name;  // "fixed", "adaptive"
  std::vector<PhaseStats> phases;
  std::vector<Duration> timeout_samples;  // every sample_every from the start
};

struct AdaptiveTimeoutScenarioResult {
  AdaptiveTimeoutScenarioOptions options;
  std::vector<ModeResult> modes;  // fixed, then adaptive
};

// How long after the recovered phase began `m`'s timeout came back within
// 2x of its value at the end of the healthy phase and stayed there, to the
// resolution of sample_every; nullopt: it never did.
std::optional<Duration> BackWithinTwiceHealthy(const ModeResult& m, const AdaptiveTimeoutScenarioOptions& o);

Result<AdaptiveTimeoutScenarioResult> RunAdaptiveTimeoutScenario(const AdaptiveTimeoutScenarioOptions& options);

}  // namespace stormguard::sim
