// stormguard/sim/chain.h: a chain of services, each calling the next with the
// library's own retry policies, on virtual time.
//
//   clients --> node 0 --hop 0--> node 1 --hop 1--> ... --> node n-1 (the leaf)
//
// A node is a service: workers (concurrency), a FIFO queue, a latency, and
// injected failures (error rate, outage windows, hangs, capacity drops).
// Every node but the leaf serves a request by calling the next node through
// its hop: a RetryPolicy (with its backoff, budget, per-attempt timeout and
// least attempt time), deadline propagation, and the chain markers
// (answer "do not retry" after giving up; do not retry while serving a
// retry), and optionally a CircuitBreaker. Decisions are RetryPolicy::
// Decide's, the budgets' and the breaker's own; the simulator only moves
// time and messages.
//
//   sim::ChainSpec spec = ...;               // see the fields below
//   Result<sim::ChainResult> r = sim::RunChain(spec);  // INVALID_ARGUMENT names bad fields
//   double amplification = r->amplification();
//
// Same spec and seed, same result, exactly. Thread safety: RunChain is
// reentrant; the policies and budgets in a spec must not be shared with a
// concurrent run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/deadline.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/sim/distribution.h"
#include "stormguard/sim/series.h"

namespace stormguard::sim {

// [from, to) measured from the start of the run.
struct Window {
  Duration from = Duration::zero();
  Duration to = Duration::zero();
  bool Contains(Duration t) const noexcept { return t >= from && t < to; }
};

struct CapacityDrop {
  Window window;
  double factor = 0.5;  // the workers that remain, as a fraction
};

struct ServiceSpec {
  std::string name;
  int concurrency = 0;          // workers; 0 means unlimited (no queue either)
  int queue_limit = 0;          // requests waiting for a worker; more are refused
  Latency latency;              // a worker's time per request
  double error_rate = 0.0;      // each request fails (UNAVAILABLE) with this probability
  std::vector<Window> outages;  // every request fails
  double hang_rate = 0.0;       // each request is never answered with this probability
  std::vector<Window> hangs;    // no request is answered
  std::vector<CapacityDrop> capacity_drops;
  // A request whose propagated deadline has passed is refused on arrival
  // and dropped from the queue before any work is done.
  bool refuse_expired = true;
};

struct HopSpec {
  RetryOptions retry;  // budget, backoff, per-attempt timeout, min attempt time...
  // The do-not-retry marker: when this hop gives up, the node answers its
  // caller with the do-not-retry marker. Off: no marker crosses the wire.
  bool mark_gave_up = false;
  // The downstream request carries the attempt's deadline (x-request-timeout-ms).
  bool propagate_deadline = false;
  HopReserve reserve{.fraction = 0.1};  // kept by this node before handing the deadline down
  // A request is marked as a retry when it is one. With this on, a node
  // serving a retry marks its own calls too (wire InjectOptions::
  // propagate_incoming_retry), so the whole subtree of a retry stays
  // retry-free and growth becomes linear (the retry flag); off, only
  // the next hop learns it. The receiving policy's retry_when_serving_a_retry
  // decides whether the marker is honoured.
  bool forward_retry_flag = false;
  // Optional: asked before every attempt (a refusal ends the attempt at once
  // with the breaker's status, pushback included) and told every result.
  std::shared_ptr<CircuitBreaker> breaker;
};

struct LoadSpec {
  int burst = 0;                          // requests at time zero
  double rate = 0.0;                      // open-loop Poisson arrivals per second...
  Duration duration = Duration::zero();   // ...for this long
  bool evenly_spaced = false;             // one every 1/rate instead (a rate limiter in front)
  Duration deadline = kInfiniteDuration;  // sent with each request (infinite: none sent)
  Duration patience = kInfiniteDuration;  // the client stops waiting (counted as failed)
};

struct ChainSpec {
  std::vector<ServiceSpec> services;  // node 0 .. n-1; the last is the leaf
  std::vector<HopSpec> hops;          // hops[i] is how node i calls node i+1
  LoadSpec load;
  Duration bucket = std::chrono::seconds(1);
  Duration run_until = kInfiniteDuration;  // stop the run here (in-flight work is cut)
  std::uint64_t seed = 1;
  std::function<void(double)> progress;  // fraction of the expected run, for a bar

  std::vector<std::string> Validate() const;
};

struct NodeStats {
  std::int64_t arrivals = 0;
  std::int64_t refused_full = 0;     // queue full
  std::int64_t refused_expired = 0;  // deadline passed before any work
  std::int64_t failed = 0;           // injected errors and outages
  std::int64_t hung = 0;
  std::int64_t peak_queue = 0;
};

struct HopStats {
  std::int64_t calls = 0;  // logical calls (retry loops started)
  std::int64_t attempts = 0;
  std::int64_t retries = 0;
  std::int64_t retries_granted = 0;  // Decide said retry (sent after the wait)
  std::int64_t timeouts = 0;         // attempts that hit their deadline
  std::int64_t budget_refused = 0;
  std::int64_t breaker_refused = 0;        // attempts the breaker did not let out
  std::int64_t marked_gave_up = 0;         // answers that carried do-not-retry
  Duration last_retry = Duration::zero();  // when the last retry was sent
  // The first retry the budget refused, and the traffic seen until then.
  std::optional<Duration> first_budget_refusal;
  std::int64_t offered_before_refusal = 0;
  std::int64_t granted_before_refusal = 0;
};

struct ChainResult {
  std::int64_t offered = 0;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
  std::int64_t abandoned = 0;  // the client's patience ran out first
  std::vector<NodeStats> nodes;
  std::vector<HopStats> hops;
  Series series;
  std::uint64_t events = 0;
  Duration elapsed = Duration::zero();  // virtual time from start to the last event

  // Attempts reaching the leaf per offered request.
  double amplification() const noexcept;
  double success_rate() const noexcept;
};

Result<ChainResult> RunChain(const ChainSpec& spec);

}  // namespace stormguard::sim
