// stormguard/sim/latency_mixture.h: a leaf's answer time as a mixture of a
// normal body, a long tail and rare stalls.
//
// Each draw picks one component: a stall with probability stall_share
// (exponential, mean stall_mean: a garbage collection, a flushed log, a
// busy neighbour), else the tail with probability tail_share (Pareto with
// scale tail_scale and index tail_alpha, or exponential with mean
// tail_scale), else the body (normal, body_mean and body_sd). The draw is
// clamped to [min, max].
//
//   sim::LatencyMixture m = sim::LatencyMixture::TailAtScale();
//   Duration d = m.Sample(rng);   // p50 ~1 ms, p95 ~5 ms, p99 ~10 ms, p99.999 ~1.8 s
//
// Why three parts: one power law cannot rise from 5 ms at p95 to 10 ms at
// p99 (index ~2.3) and still reach a second by p99.999 (it would give
// ~0.2 s); the rare stalls are what a fan-out of many leaves keeps meeting.
//
// Thread safety: a plain value; Sample() touches only the Random it is given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/random.h"
#include "stormguard/core/time.h"

namespace stormguard::sim {

enum class TailShape { kPareto, kExponential };

// "pareto", "exponential".
std::string_view TailShapeName(TailShape s) noexcept;

struct LatencyMixture {
  Duration body_mean = std::chrono::microseconds(1000);
  Duration body_sd = std::chrono::microseconds(300);
  double tail_share = 0.08;  // of all draws
  TailShape tail = TailShape::kPareto;
  Duration tail_scale = std::chrono::milliseconds(4);  // Pareto: least value; exponential: mean
  double tail_alpha = 2.3;                             // Pareto index (smaller: heavier)
  double stall_share = 0.0;                            // of all draws
  Duration stall_mean = std::chrono::milliseconds(800);
  Duration min = std::chrono::microseconds(100);
  Duration max = std::chrono::seconds(2);

  // The shape of The Tail at Scale's leaves (Dean & Barroso 2013, Table 1:
  // 1/5/10 ms at p50/p95/p99) with stalls (mean 0.8 s) one draw in 10,000.
  static LatencyMixture TailAtScale() noexcept;

  Duration Sample(Random& rng) const noexcept;
  std::vector<std::string> Validate() const;
  bool operator==(const LatencyMixture&) const = default;
};

}  // namespace stormguard::sim
