// stormguard/sim/metastable.h: a metastable failure, and the controls that
// prevent it (Bronson et al., "Metastable Failures in Distributed Systems",
// HotOS'21).
//
// Clients send `load` x capacity requests per second through `layers`
// retrying layers to a service with `workers` workers (exponential service
// times, mean `latency`) and a long FIFO queue. From `trigger_at`, for
// `trigger_for`, the service loses `drop` of its workers, then gets them
// back. With fixed per-attempt timeouts and every layer retrying (--control
// none), the trigger fills the queue, every attempt times out, retries
// multiply the load, and the work the service does is for callers that
// already left: it stays down after the trigger is gone (the retries are the
// sustaining effect). With --control all (deadlines let the service drop
// expired work; budgets, the gate and the chain markers stop the retries)
// it recovers as soon as its capacity returns.
//
//   auto r = sim::RunMetastable({.controls = {sim::Control::kNone}});
//   r->runs[0].goodput_after;   // ~0
//
// The defaults tell docs/retry-amplification.md, "A storm over time": 1000
// requests become 4000 when a
// layer times out and retries three times, 16000 with two such layers.
// Goodput: the share of requests arriving in a phase that succeed within
// the clients' patience. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/sim/controls.h"
#include "stormguard/sim/series.h"

namespace stormguard::sim {

struct MetastableOptions {
  std::vector<Control> controls{Control::kNone, Control::kAll};
  int layers = 2;
  int retries = 3;
  double load = 0.8;  // offered load as a share of the service's full capacity
  int workers = 10;
  Duration latency = std::chrono::milliseconds(10);  // mean service time
  double drop = 0.5;                                 // share of the workers lost during the trigger
  Duration trigger_at = std::chrono::seconds(10);
  Duration trigger_for = std::chrono::seconds(10);
  Duration duration = std::chrono::seconds(60);
  Duration timeout = std::chrono::milliseconds(100);  // per attempt, every layer
  Duration patience = std::chrono::seconds(1);        // clients give up; their deadline with deadlines on
  int queue = 100000;
  Duration bucket = std::chrono::seconds(1);
  std::uint64_t seed = 1;
  std::function<void(double)> progress;

  double capacity() const noexcept;  // requests per second with every worker
  std::vector<std::string> Validate() const;
};

struct MetastableRun {
  Control control = Control::kNone;
  double goodput_before = 0;
  double goodput_during = 0;
  double goodput_after = 0;
  // From the end of the trigger to the first bucket from which goodput stays
  // at least 90% of goodput_before; nullopt if it never does.
  std::optional<Duration> recovery;
  std::int64_t offered = 0;
  double amplification = 0;  // attempts reaching the service per offered request
  std::int64_t peak_queue = 0;
  Counts goodput_permille;  // per bucket, by arrival time
  Series series;
  std::uint64_t events = 0;
};

struct MetastableResult {
  MetastableOptions options;
  std::vector<MetastableRun> runs;
};

Result<MetastableResult> RunMetastable(const MetastableOptions& options);

}  // namespace stormguard::sim
