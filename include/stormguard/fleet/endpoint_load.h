// stormguard/fleet/endpoint_load.h: how loaded one replica looks to a client.
//
// A client keeps one EndpointLoad per replica it calls: the calls it has
// outstanding there, and a peak-sensitive moving average of their latency
// (Finagle's and Linkerd's "peak EWMA"): a slower answer raises the average
// at once, faster ones pull it down over `decay`. A picker compares replicas
// by their cost, (average latency) x (outstanding + 1) / weight, so a slow
// replica and a busy one both look expensive before a timeout says so; an
// idle one's average decays, so it is tried again after a while. A failed
// answer that came back fast counts as `failure_penalty`, mixed into the
// average like any answer: a replica failing half its calls in 1 ms must not
// look like the fastest of the set.
//
//   EndpointLoad& e = *endpoints[picker.Pick(...)];
//   e.Start();
//   Status s = Call(replica);
//   e.End(clock.Now() - start, clock.Now(), /*failed=*/!s.ok());
//
// Thread safety: every method may run concurrently; no locks. Concurrent
// End()s may each overwrite the other's sample (the average is an estimate).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "stormguard/core/time.h"

namespace stormguard {

struct EndpointLoadOptions {
  // How fast faster answers pull the average down: a sample's weight falls
  // to 1/e after this long (Linkerd's default is 10 s).
  Duration decay = std::chrono::seconds(10);
  // The latency an endpoint is assumed to have until its first answer.
  Duration initial_latency = std::chrono::milliseconds(10);
  // Relative capacity: a weight-2 endpoint costs half as much at one load.
  double weight = 1.0;
  // What a failure faster than this counts as. It moves the average like a
  // faster answer does (by the time since the last one), never as a peak: a
  // replica's average then grows with its error rate (gRPC's weighted round
  // robin penalizes errors the same way), and one failure does not make a
  // busy healthy replica look dead. 0: failures count as their own latency.
  Duration failure_penalty = std::chrono::seconds(1);

  std::vector<std::string> Validate() const;
};

class EndpointLoad {
 public:
  explicit EndpointLoad(const EndpointLoadOptions& options = {}) noexcept;
  EndpointLoad(const EndpointLoad&) = delete;
  EndpointLoad& operator=(const EndpointLoad&) = delete;

  void Start() noexcept { outstanding_.fetch_add(1, std::memory_order_relaxed); }
  // The call started by Start() ended after `latency`, at `now`; `failed`:
  // its outcome counts against the replica (see CountsAsReplicaFailure).
  void End(Duration latency, TimePoint now, bool failed = false) noexcept;
  // A call started by Start() that will not report a latency (cancelled).
  void Abandon() noexcept { outstanding_.fetch_sub(1, std::memory_order_relaxed); }

  // (average latency in ns + 1) x (outstanding + 1) / weight, the average
  // decayed to `now` as if answers of no time had come since the last
  // one (Finagle's peak EWMA does the same when it reads the load). A
  // picker that compares costs never picks the dearest of what it draws,
  // so without the decay a replica that looked slow once and then got no
  // calls would stay the dearest, and unused, for good.
  double Cost(TimePoint now) const noexcept;
  int outstanding() const noexcept { return outstanding_.load(std::memory_order_relaxed); }
  Duration average() const noexcept { return Duration(average_ns_.load(std::memory_order_relaxed)); }

 private:
  std::atomic<std::int32_t> outstanding_{0};
  std::atomic<std::int64_t> average_ns_;
  std::atomic<std::int64_t> stamp_ns_{0};  // when the average was last moved; 0: never
  const double decay_ns_;
  const double inverse_weight_;
  const std::int64_t failure_penalty_ns_;
};

}  // namespace stormguard
