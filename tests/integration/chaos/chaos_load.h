// tests/integration/chaos/chaos_load.h: steady load through A while a fault
// runs, and the figures the chaos tests judge.
//
//   SteadyLoad load(chain->entry_port(), {.before = 3s, .fault = 2s, .after = 4s});
//   Clock::Real().SleepUntil(load.fault_start(), {});  // then break something
//   std::vector<OperationResult> results = load.Finish();
//   ChaosFigures f = Tally(results, load.Offset(load.fault_start()), load.Offset(fault_end),
//                          load.end(), ledger);
//
// The load is open-loop (load_generator.h) at a fixed rate, half GET /stock,
// half POST /charge with an idempotency key, each with a deadline of the
// entry budget from the moment it was due, so the latency the load
// generator records minus that budget is how late its answer came.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "demo/bottom_ledger.h"
#include "demo/load_generator.h"

namespace stormguard::demo::chaos {

inline constexpr Duration kEntryBudget = std::chrono::seconds(1);

struct LoadShape {
  double rate = 50;  // operations per second
  Duration before{}, fault{}, after{};
};

class SteadyLoad {
 public:
  // Starts offering load at once, on a thread of its own.
  SteadyLoad(int entry_port, LoadShape shape);
  ~SteadyLoad() { Finish(); }
  SteadyLoad(const SteadyLoad&) = delete;
  SteadyLoad& operator=(const SteadyLoad&) = delete;

  TimePoint fault_start() const noexcept { return start_ + shape_.before; }
  TimePoint fault_end() const noexcept { return fault_start() + shape_.fault; }
  Duration end() const noexcept { return shape_.before + shape_.fault + shape_.after; }
  Duration Offset(TimePoint t) const noexcept { return t - start_; }
  // Waits until every operation has been answered (or given up).
  std::vector<OperationResult> Finish();

 private:
  LoadShape shape_;
  TimePoint start_;
  std::vector<OperationResult> results_;
  std::jthread thread_;
};

struct ChaosFigures {
  std::uint64_t requests = 0;
  // Operations due before the fault, during it and after it that succeeded.
  double success_before = 0, success_during = 0, success_after = 0;
  // The latest answer relative to its operation's deadline (negative: early).
  Duration worst_lateness{};
  // From the fault's end to the first 1 s window of >= 99% success; empty
  // when no window made it before the load ended.
  std::optional<Duration> recovery;
  // C's ledger.
  std::uint64_t reached_c = 0, charges = 0, duplicate_charges = 0, orphans = 0;
};

// Offsets are from the load's start.
ChaosFigures Tally(const std::vector<OperationResult>& results, Duration fault_start, Duration fault_end,
                   Duration load_end, const BottomSnapshot& ledger);

std::string Format(const std::string& scenario, const ChaosFigures& f);

}  // namespace stormguard::demo::chaos
