// tools/demo/summary.h: one mode's results, phase by phase.
//
//   ModeReport r = Summarize(Mode::kNaive, phases, results, bottom, start_unix_ms);
//   r.phases[1].amplification   // attempts reaching C per operation offered, while C was down
//
// Pure functions over what the load generator and C recorded.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "demo/bottom_ledger.h"
#include "demo/demo_options.h"
#include "demo/gray_summary.h"
#include "demo/load_generator.h"

namespace stormguard::demo {

struct PhaseSummary {
  std::uint64_t offered = 0;                   // logical operations offered to A
  std::uint64_t reached_bottom = 0;            // attempts that reached C
  double amplification = 0;                    // reached_bottom / offered
  double success_rate = 0;                     // operations that succeeded / offered
  double p50_ms = 0, p99_ms = 0, p999_ms = 0;  // latency of operations, failed ones too
  double orphan_ratio = 0;                     // C's work finished after its caller gave up / reached_bottom
  std::uint64_t duplicate_effects = 0;         // charges beyond the first per operation
};

inline constexpr Duration kRecoveryWindow = std::chrono::seconds(1);
inline constexpr double kRecoveredSuccess = 0.99;

struct ModeReport {
  Mode mode = Mode::kNaive;
  std::vector<PhaseSummary> phases;  // parallel to the demo's phases
  // From the end of the last outage to the start of the first 1 s window
  // with >= 99% success; empty when no window made it.
  std::optional<Duration> recovery;
  // Attempts reaching C: (seconds since the start, attempts per second),
  // one point per kTimelineBucketMs bucket.
  std::vector<std::pair<double, double>> timeline;
  // A fleet of C (--replicas 2 or more): what the mode made of its gray replica.
  std::optional<GraySummary> gray;
};

// Nearest-rank percentile (q in [0, 1]) of `values`; 0 for none. Sorts.
double Percentile(std::vector<double>& values, double q);

// Windows of kRecoveryWindow starting every `step` from `since` (offsets
// from the load's start), ending no later than `until`.
std::optional<Duration> RecoveryTime(const std::vector<OperationResult>& results, Duration since, Duration until,
                                     Duration step = std::chrono::milliseconds(250));

ModeReport Summarize(Mode mode, const std::vector<Phase>& phases, const std::vector<OperationResult>& results,
                     const BottomSnapshot& bottom, std::int64_t start_unix_ms);

}  // namespace stormguard::demo
