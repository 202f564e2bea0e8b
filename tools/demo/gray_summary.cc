#include "demo/gray_summary.h"

#include <algorithm>

namespace stormguard::demo {
namespace {

std::int64_t Ms(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

double Share(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

// Arrivals in whole buckets within [from_ms, until_ms).
std::uint64_t ArrivalsBetween(const BottomSnapshot& s, std::int64_t from_ms, std::int64_t until_ms) {
  std::uint64_t n = 0;
  for (const auto& [bucket, count] : s.timeline) {
    if (bucket >= from_ms && bucket + kTimelineBucketMs <= until_ms) n += count;
  }
  return n;
}

std::optional<Duration> EjectedAfter(const std::vector<ReplicaChange>& changes, const std::string& endpoint,
                                     std::int64_t since_ms) {
  for (const ReplicaChange& c : changes) {
    if (c.endpoint == endpoint && IsEjected(c.to) && c.unix_ms >= since_ms) {
      return std::chrono::milliseconds(c.unix_ms - since_ms);
    }
  }
  return std::nullopt;
}

// From `healed_ms` until `endpoint` was back in: zero when it was in then
// (its last change before was a readmission), empty when it stayed out.
std::optional<Duration> ReadmittedAfter(const std::vector<ReplicaChange>& changes, const std::string& endpoint,
                                        std::int64_t healed_ms) {
  bool out = false;
  for (const ReplicaChange& c : changes) {
    if (c.endpoint != endpoint) continue;
    if (c.unix_ms < healed_ms) {
      out = IsEjected(c.to);
    } else if (!out) {
      return Duration::zero();
    } else if (!IsEjected(c.to)) {
      return std::chrono::milliseconds(c.unix_ms - healed_ms);
    }
  }
  if (out) return std::nullopt;
  return Duration::zero();
}

// See GraySummary::share_back; ledgers[0] is the gray replica's.
std::optional<Duration> ShareBackAfter(const std::vector<BottomSnapshot>& ledgers, double healthy_share,
                                       std::int64_t healed_ms, std::int64_t end_ms) {
  const std::int64_t window = Ms(kShareBackWindow);
  for (std::int64_t t = healed_ms; t + window <= end_ms; t += kTimelineBucketMs) {
    std::uint64_t all = 0;
    for (const BottomSnapshot& l : ledgers) all += ArrivalsBetween(l, t, t + window);
    const double share = Share(ArrivalsBetween(ledgers[0], t, t + window), all);
    if (all > 0 && share >= kShareBackFraction * healthy_share)
      return std::chrono::milliseconds(t + window - healed_ms);
  }
  return std::nullopt;
}

}  // namespace

BottomSnapshot MergeSnapshots(const std::vector<BottomSnapshot>& replicas) {
  BottomSnapshot sum;
  for (const BottomSnapshot& r : replicas) {
    for (const auto& [name, c] : r.phases) {
      BottomCounts& t = sum.phases[name];
      t.reached += c.reached;
      t.completed += c.completed;
      t.orphans += c.orphans;
      t.effects += c.effects;
      t.duplicate_effects += c.duplicate_effects;
    }
    for (const auto& [bucket, n] : r.timeline) sum.timeline[bucket] += n;
    sum.in_flight += r.in_flight;
  }
  return sum;
}

GraySummary SummarizeGray(const std::vector<Phase>& phases, const std::vector<BottomSnapshot>& ledgers,
                          const std::optional<std::vector<ReplicaChange>>& changes, const std::string& gray_endpoint,
                          std::int64_t start_unix_ms) {
  GraySummary g;
  const auto it = std::find_if(phases.begin(), phases.end(), [](const Phase& p) { return p.gray; });
  if (it == phases.end() || ledgers.empty()) return g;
  g.phase = static_cast<std::size_t>(it - phases.begin());
  const PhaseSpan span = PhaseSpans(phases)[g.phase];
  const std::int64_t gray_ms = start_unix_ms + Ms(span.start), healed_ms = start_unix_ms + Ms(span.end);
  std::uint64_t healthy_all = 0, healthy_gray = 0;
  for (std::size_t r = 0; r < ledgers.size(); ++r) {
    const std::uint64_t n = ArrivalsBetween(ledgers[r], gray_ms + Ms(kGrayGrace), healed_ms);
    const std::uint64_t before = ArrivalsBetween(ledgers[r], start_unix_ms, gray_ms);
    g.all_attempts += n;
    healthy_all += before;
    if (r == 0) {
      g.gray_attempts = n;
      healthy_gray = before;
    }
  }
  g.gray_share = Share(g.gray_attempts, g.all_attempts);
  g.healthy_share = Share(healthy_gray, healthy_all);
  if (g.phase + 1 < phases.size()) {
    const std::int64_t end_ms = start_unix_ms + Ms(PhaseSpans(phases)[g.phase + 1].end);
    g.share_back = ShareBackAfter(ledgers, g.healthy_share, healed_ms, end_ms);
  }
  if (!changes) return g;
  g.ejections_known = true;
  g.ejected = EjectedAfter(*changes, gray_endpoint, gray_ms);
  if (g.ejected) g.readmitted = ReadmittedAfter(*changes, gray_endpoint, healed_ms);
  return g;
}

}  // namespace stormguard::demo
