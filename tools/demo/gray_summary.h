// tools/demo/gray_summary.h: what one mode made of a gray replica (--replicas).
//
//   GraySummary g = SummarizeGray(phases, ledgers, changes, "127.0.0.1:4711", start_unix_ms);
//   g.gray_share   // of the attempts reaching C from 2 s into the gray phase, those at replica 0
//   g.ejected      // stormguard: from the gray phase's start until B ejected replica 0
//
// Each replica of C keeps its own ledger (250 ms buckets of arrivals); B's
// replica set logs its ejections (replica_log.h). Pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "demo/bottom_ledger.h"
#include "demo/demo_options.h"
#include "demo/replica_log.h"

namespace stormguard::demo {

// The gray replica's first seconds are for the callers to notice it; its
// share is measured after them.
inline constexpr Duration kGrayGrace = std::chrono::seconds(2);

struct GraySummary {
  std::size_t phase = 0;  // index of the gray phase
  // Attempts arriving from kGrayGrace into the gray phase to its end: at
  // replica 0, at every replica, and the ratio (0 when none arrived).
  std::uint64_t gray_attempts = 0, all_attempts = 0;
  double gray_share = 0;
  // Replica 0's share of the attempts at C in the phases before the gray
  // one: what it took while it was healthy.
  double healthy_share = 0;
  bool ejections_known = false;  // B's replica log was read (stormguard)
  // From the gray phase's start to replica 0's first ejection after it;
  // empty when it was never ejected.
  std::optional<Duration> ejected;
  // From the healed phase's start until replica 0 was back in (zero when it
  // already was); empty when it was never ejected or is still out.
  std::optional<Duration> readmitted;
  // From the healed phase's start to the end of the first whole second in
  // it when replica 0 took at least half its healthy share of the attempts
  // at C: when callers use it again, whether they had ejected it or only
  // shunned it (a picker's cost); empty when that never came.
  std::optional<Duration> share_back;
};

// The window share_back looks at, and how much of the healthy share counts.
inline constexpr Duration kShareBackWindow = std::chrono::seconds(1);
inline constexpr double kShareBackFraction = 0.5;

// The sum of the replicas' ledgers (every count and timeline bucket).
BottomSnapshot MergeSnapshots(const std::vector<BottomSnapshot>& replicas);

// `ledgers[0]` is the gray replica's; `changes` is B's log when read,
// `gray_endpoint` its address in it.
GraySummary SummarizeGray(const std::vector<Phase>& phases, const std::vector<BottomSnapshot>& ledgers,
                          const std::optional<std::vector<ReplicaChange>>& changes, const std::string& gray_endpoint,
                          std::int64_t start_unix_ms);

}  // namespace stormguard::demo
