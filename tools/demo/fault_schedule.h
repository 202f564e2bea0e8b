// tools/demo/fault_schedule.h: how service C misbehaves, phase by phase.
//
// Healthy (and recovered): 1% of requests fail at once with a transient 503;
// 1% are slow (1.2 s, beyond the naive 1 s timeout: the classic tail that
// leaves work running for callers that gave up); 5% of the charges that
// succeed lose their response (C charged, but the answer arrives only after
// every caller's timeout). Down: every request gets a 503 at once (the
// downstream keeps answering 503).
//
// The outage is per operation, like a header-keyed fault injector (Envoy's
// fault filter): every attempt of an operation offered during an outage
// phase fails, whenever it arrives. Switching C by wall time instead lets
// the numbers depend on which retries straddle a boundary: a healthy
// operation retried into the outage fails, and the last operations of a
// short outage retry into the recovered C (naive spreads its 27 attempts
// over 2.6 s). Per operation, each phase shows its steady state.
//
//   FaultSchedule faults(FaultRates{}, seed, {"down"});
//   if (faults.InOutage(m.phase)) return Reply(503);
//   switch (faults.Draw()) { case Fault::kError: ...; case Fault::kSlow: ...; }
//
// A gray replica (replica 0 of a fleet, --replicas) is gray the same way,
// per operation: an operation of a gray phase finds it, with probability
// `share`, slow (`latency`) or failing (503), whichever its mode says, on
// top of the healthy faults (DrawGray first, then Draw).
//
// Thread safety: all methods; draws share one seeded Random under a mutex
// (a few thousand draws a second at most).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "demo/demo_options.h"
#include "stormguard/core/random.h"
#include "stormguard/core/time.h"

namespace stormguard::demo {

struct FaultRates {
  double error = 0.01;          // transient 503
  double slow = 0.01;           // takes slow_time
  double lost_response = 0.05;  // of successful charges
  Duration slow_time = std::chrono::milliseconds(1200);
  // Longer than every caller's attempt timeout (naive 1 s, stormguard less).
  Duration lost_delay = std::chrono::milliseconds(1100);
};

enum class Fault { kNone, kError, kSlow };

struct GrayFaults {
  std::vector<std::string> phases;  // empty: never gray
  GrayMode mode = GrayMode::kSlow;
  double share = 0.5;
  Duration latency = std::chrono::milliseconds(1200);
};

class FaultSchedule {
 public:
  FaultSchedule(FaultRates rates, std::uint64_t seed, std::vector<std::string> outage_phases, GrayFaults gray = {})
      : rates_(rates), outage_phases_(std::move(outage_phases)), gray_(std::move(gray)), rng_(seed) {}

  // Operations offered in this phase find C down.
  bool InOutage(std::string_view phase) const noexcept;
  // kSlow (gray().latency) or kError for an operation of a gray phase that
  // draws the gray answer; kNone otherwise (no draw outside gray phases).
  Fault DrawGray(std::string_view phase);
  const GrayFaults& gray() const noexcept { return gray_; }

  Fault Draw();
  bool DrawLostResponse();
  const FaultRates& rates() const noexcept { return rates_; }

 private:
  double Uniform();

  const FaultRates rates_;
  const std::vector<std::string> outage_phases_;
  const GrayFaults gray_;
  std::mutex mu_;
  Random rng_;
};

}  // namespace stormguard::demo
