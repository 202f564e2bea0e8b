// stormguard/sim/fleet_scenario.h: clients calling a fleet of replicas, some
// of them gray, with each picker of the library, with and without outlier
// ejection.
//
// Requests arrive as one Poisson process (`rate` per second, `requests` in
// all), each from a client drawn at random. Clients come in
// `client_groups` groups; the clients of a group share one ReplicaSet (the
// library's own: its picker, its EndpointLoads, its outlier detection), so
// a group is one view of the fleet. One view per client would cost
// clients x replicas endpoints (10,000 x 1,000 = 10M), too many.
//
// Each replica serves `concurrency` attempts at once and queues `queue`
// more (FIFO; a full queue refuses at once, kOverloaded; queued work whose
// caller gave up is skipped). A healthy replica answers in a lognormal
// time (median `latency`, spread `latency_sigma`). A gray replica
// (`gray_fraction` of them) answers `gray_share` of its attempts badly:
// in `gray_latency` (kSlow) or with an error after the usual time (kFail).
//
// Each request has a `deadline`; each attempt ends at `attempt_timeout` at
// the latest (RetryPolicy::AttemptDeadline). A failed or timed-out attempt
// is retried (RetryPolicy::Decide: up to `max_attempts`, full-jitter
// backoff, only while the deadline holds the wait) on another replica: the
// call's Tried keeps the replicas it used.
//
//   auto r = sim::RunFleetScenario({.replicas = 50, .requests = 20'000, .rate = 2500});
//   r->runs[0].wasted_on_gray();   // random, no ejection: ~5% of attempts
//
// Same options and seed, same result. Thread safety: reentrant (each run
// uses its own engine and sets, on the calling thread).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/fleet/outlier_detection.h"
#include "stormguard/fleet/picker.h"

namespace stormguard::sim {

// How a gray replica answers the attempts it answers badly.
enum class GrayMode : std::uint8_t { kSlow, kFail };
std::string_view GrayModeName(GrayMode m) noexcept;  // "slow", "fail"
std::optional<GrayMode> ParseGrayMode(std::string_view name) noexcept;

inline constexpr PickerKind kAllPickers[] = {PickerKind::kRandom, PickerKind::kRoundRobin,
                                             PickerKind::kLeastOutstanding, PickerKind::kPeakEwma};

// The most endpoint objects (client groups x replicas) a run may hold.
inline constexpr double kMaxFleetEndpoints = 1'000'000;

struct FleetScenarioOptions {
  std::vector<PickerKind> pickers{std::begin(kAllPickers), std::end(kAllPickers)};
  std::vector<bool> ejection{false, true};  // each picker runs once per entry
  // And once per entry here: on, each call sends one hedge to another
  // replica once its first attempt is slower than the p95 of recent
  // answers (the library's HedgePolicy with a LatencyTracker; The Tail at
  // Scale's rule), drawing on no budget.
  std::vector<bool> hedge{false};
  int clients = 10'000;
  int client_groups = 100;  // clients sharing one ReplicaSet each; at most `clients`
  int replicas = 1000;
  std::int64_t requests = 1'000'000;  // per run
  double rate = 50'000;               // requests per second, all clients together
  double gray_fraction = 0.1;         // of the replicas
  GrayMode gray_mode = GrayMode::kSlow;
  double gray_share = 0.5;  // of a gray replica's answers that are slow or fail
  Duration gray_latency = std::chrono::milliseconds(1200);
  Duration latency = std::chrono::milliseconds(5);  // healthy median
  double latency_sigma = 0.5;                       // lognormal spread: p99 ~ 3.2 x median
  int concurrency = 32;                             // attempts a replica serves at once
  int queue = 1000;                                 // attempts a replica holds waiting
  Duration deadline = std::chrono::seconds(1);
  Duration attempt_timeout = std::chrono::milliseconds(250);
  int max_attempts = 2;  // the first and one retry to another replica
  // With ejection on (each view sees ~rate / groups / replicas calls per
  // replica per second, so success-rate judging needs a low volume).
  OutlierDetectionOptions outlier{.success_rate_request_volume = 20};
  EndpointLoadOptions load;  // the pickers' latency averages (peak EWMA's)
  std::uint64_t seed = 1;
  std::function<void(double)> progress;  // fraction of all runs done

  int gray_replicas() const noexcept;
  std::vector<std::string> Validate() const;
};

struct FleetRun {
  PickerKind picker = PickerKind::kRandom;
  bool ejection = false;
  bool hedge = false;
  std::int64_t requests = 0;
  std::int64_t hedges = 0;  // hedged attempts sent (counted in attempts too)
  std::int64_t succeeded = 0;
  std::int64_t attempts = 0;
  std::int64_t gray_attempts = 0;  // attempts sent to gray replicas
  std::int64_t gray_wasted = 0;    // of those, the ones that brought no success
  std::int64_t rejected = 0;       // attempts refused by a full queue
  std::int64_t ejections = 0;      // endpoints ejected, over every view
  int healthy_replicas = 0;
  int gray_replicas = 0;
  Duration p50 = Duration::zero();  // request latency, arrival to final answer
  Duration p99 = Duration::zero();
  Duration p999 = Duration::zero();
  std::uint64_t events = 0;

  double success_rate() const noexcept;
  double attempts_per_request() const noexcept;
  double per_healthy_replica() const noexcept;  // attempts each healthy replica got
  double per_gray_replica() const noexcept;
  double gray_share() const noexcept;      // gray_attempts / attempts
  double wasted_on_gray() const noexcept;  // gray_wasted / attempts
};

struct FleetScenarioResult {
  FleetScenarioOptions options;
  std::vector<FleetRun> runs;  // picker-major: each picker, then each ejection entry
};

Result<FleetScenarioResult> RunFleetScenario(const FleetScenarioOptions& options);

}  // namespace stormguard::sim
