// tools/demo/load_generator.h: an open-loop load generator.
//
// Offers operations at a fixed rate whatever the answers (users do not slow
// down because a service is in trouble), ~half GET /stock and half POST
// /charge, from a pool of worker threads. An operation's latency counts from
// the moment it was due, so a backed-up pool shows as latency rather than as
// a lower rate (no coordinated omission).
//
//   LoadPlan plan{.rate = 50, .phases = options.Phases(), .seed = 1, .start = t0};
//   std::vector<OperationResult> r = RunOpenLoop(plan, send, on_phase);
//
// `on_phase(i)` runs on the scheduling thread when phase i begins, before
// its first operation is due; `send` runs on the workers, concurrently.
// RunOpenLoop returns when every operation has finished (each is bounded by
// its caller's timeouts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "demo/demo_options.h"

namespace stormguard::demo {

struct Operation {
  std::uint64_t id = 0;
  std::size_t phase = 0;  // index into LoadPlan::phases
  bool charge = false;    // POST /charge, else GET /stock
  TimePoint due{};
};

struct OperationResult {
  std::size_t phase = 0;
  Duration offset{};   // when it was due, since the plan's start
  Duration latency{};  // from due to answered (or given up)
  bool ok = false;
};

struct LoadPlan {
  double rate = 50;  // operations per second
  std::vector<Phase> phases;
  std::uint64_t seed = 1;  // which operations are charges
  bool charges = true;     // false: GET /stock only
  TimePoint start{};
  int workers = 256;
};

using SendFn = std::function<bool(const Operation&)>;
using PhaseFn = std::function<void(std::size_t phase)>;

std::vector<OperationResult> RunOpenLoop(const LoadPlan& plan, const SendFn& send, const PhaseFn& on_phase);

}  // namespace stormguard::demo
