#include "demo/summary.h"

#include <algorithm>
#include <cmath>

namespace stormguard::demo {
namespace {

double Ratio(double num, double den) { return den > 0 ? num / den : 0; }

// The end of the last outage phase (offset from the start) and of the demo.
std::optional<std::pair<Duration, Duration>> AfterLastOutage(const std::vector<Phase>& phases) {
  const std::vector<PhaseSpan> spans = PhaseSpans(phases);
  for (std::size_t p = phases.size(); p-- > 0;) {
    if (!phases[p].bottom_down) continue;
    if (spans[p].end == spans.back().end) return std::nullopt;
    return std::pair{spans[p].end, spans.back().end};
  }
  return std::nullopt;
}

std::vector<std::pair<double, double>> Timeline(const BottomSnapshot& bottom, std::int64_t start_unix_ms) {
  std::vector<std::pair<double, double>> out;
  const double per_second = 1000.0 / static_cast<double>(kTimelineBucketMs);
  for (const auto& [bucket, n] : bottom.timeline) {
    const double mid_ms = static_cast<double>(bucket - start_unix_ms) + kTimelineBucketMs / 2.0;
    if (mid_ms >= 0) out.emplace_back(mid_ms / 1000.0, static_cast<double>(n) * per_second);
  }
  return out;
}

}  // namespace

double Percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

std::optional<Duration> RecoveryTime(const std::vector<OperationResult>& results, Duration since, Duration until,
                                     Duration step) {
  for (Duration from = since; from + kRecoveryWindow <= until; from += step) {
    std::uint64_t offered = 0, ok = 0;
    for (const OperationResult& r : results) {
      if (r.offset < from || r.offset >= from + kRecoveryWindow) continue;
      ++offered;
      ok += r.ok ? 1 : 0;
    }
    if (offered > 0 && Ratio(static_cast<double>(ok), static_cast<double>(offered)) >= kRecoveredSuccess) {
      return from - since;
    }
  }
  return std::nullopt;
}

ModeReport Summarize(Mode mode, const std::vector<Phase>& phases, const std::vector<OperationResult>& results,
                     const BottomSnapshot& bottom, std::int64_t start_unix_ms) {
  ModeReport report{.mode = mode, .phases = std::vector<PhaseSummary>(phases.size())};
  std::vector<std::vector<double>> latencies(phases.size());
  std::vector<std::uint64_t> succeeded(phases.size());
  for (const OperationResult& r : results) {
    ++report.phases[r.phase].offered;
    succeeded[r.phase] += r.ok ? 1 : 0;
    latencies[r.phase].push_back(ToMillis(r.latency));
  }
  for (std::size_t p = 0; p < phases.size(); ++p) {
    PhaseSummary& s = report.phases[p];
    const auto it = bottom.phases.find(phases[p].name);
    const BottomCounts c = it == bottom.phases.end() ? BottomCounts{} : it->second;
    s.reached_bottom = c.reached;
    s.amplification = Ratio(static_cast<double>(c.reached), static_cast<double>(s.offered));
    s.success_rate = Ratio(static_cast<double>(succeeded[p]), static_cast<double>(s.offered));
    s.p50_ms = Percentile(latencies[p], 0.50);
    s.p99_ms = Percentile(latencies[p], 0.99);
    s.p999_ms = Percentile(latencies[p], 0.999);
    s.orphan_ratio = Ratio(static_cast<double>(c.orphans), static_cast<double>(c.reached));
    s.duplicate_effects = c.duplicate_effects;
  }
  if (const auto after = AfterLastOutage(phases)) {
    report.recovery = RecoveryTime(results, after->first, after->second);
  }
  report.timeline = Timeline(bottom, start_unix_ms);
  return report;
}

}  // namespace stormguard::demo
