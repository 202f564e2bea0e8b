// tools/demo/bottom_ledger.h: what service C saw, per phase of the demo.
//
// C records every attempt that reaches it (by the phase its operation was
// offered in, and by arrival time for the timeline), every piece of work it
// finished, whether the caller had already given up by then (orphan work),
// and every side effect of POST /charge per operation id (effects beyond the
// first are duplicate charges).
//
//   BottomLedger ledger;
//   auto visit = ledger.Arrive(m.phase, UnixNowMs());   // in flight until destroyed
//   ledger.Complete(m.phase, giveup_ms, UnixNowMs());
//   ledger.Effect(m.phase, m.op);
//   nlohmann::json j = ledger.ToJson();                  // GET /admin/stats
//
// Thread safety: every method (one mutex; C serves at most a few thousand
// requests a second here).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace stormguard::demo {

struct BottomCounts {
  std::uint64_t reached = 0;            // attempts that arrived at C
  std::uint64_t completed = 0;          // work C finished
  std::uint64_t orphans = 0;            // ... after its caller had given up
  std::uint64_t effects = 0;            // charges performed
  std::uint64_t duplicate_effects = 0;  // charges beyond the first of an operation
};

struct BottomSnapshot {
  std::map<std::string, BottomCounts> phases;
  // Arrivals per bucket: bucket start (wall-clock Unix ms) -> attempts.
  std::map<std::int64_t, std::uint64_t> timeline;
  std::uint64_t in_flight = 0;
};

inline constexpr std::int64_t kTimelineBucketMs = 250;

class BottomLedger {
 public:
  // Leaves the in-flight count when destroyed.
  class Visit {
   public:
    explicit Visit(BottomLedger& l) noexcept : ledger_(l) {}
    ~Visit();
    Visit(const Visit&) = delete;
    Visit& operator=(const Visit&) = delete;

   private:
    BottomLedger& ledger_;
  };

  [[nodiscard]] Visit Arrive(const std::string& phase, std::int64_t unix_ms);
  // Finished work at `unix_ms`; `giveup_ms` is when its caller stopped
  // waiting (0: unknown, never counted as orphan).
  void Complete(const std::string& phase, std::int64_t giveup_ms, std::int64_t unix_ms);
  void Effect(const std::string& phase, const std::string& op);

  BottomSnapshot Snapshot() const;

 private:
  mutable std::mutex mu_;
  BottomSnapshot s_;
  std::unordered_map<std::string, std::uint64_t> effects_per_op_;
};

nlohmann::json ToJson(const BottomSnapshot& s);
BottomSnapshot BottomSnapshotFromJson(const nlohmann::json& j);  // throws on malformed input

}  // namespace stormguard::demo
