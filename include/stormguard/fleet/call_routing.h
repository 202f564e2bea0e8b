// stormguard/fleet/call_routing.h: the replicas one call's attempts go to.
//
// An adapter makes one CallRouting per call: each attempt (a retry, a
// hedge) picks a replica this call has not tried yet while one is left,
// and reports how it went.
//
//   CallRouting routing(set.get());              // null: no replicas, Pick is empty
//   PickedEndpoint e = routing.Pick(clock.Now());
//   Status s = SendTo(e ? e.address() : url_host, ...);
//   routing.Report(e, outcome, clock.Now());
//
// Thread safety: a hedge's attempts run at once on other threads; Pick
// takes the call's own small lock for its list of tried replicas.
#pragma once

#include <mutex>

#include "stormguard/core/random.h"
#include "stormguard/fleet/replica_set.h"

namespace stormguard {

class CallRouting {
 public:
  explicit CallRouting(ReplicaSet* set) noexcept : set_(set) {}

  PickedEndpoint Pick(TimePoint now) {
    if (set_ == nullptr) return {};
    std::lock_guard lock(mu_);
    return set_->Pick(now, tried_, ThreadLocalRandom());
  }
  void Report(PickedEndpoint& picked, OutcomeClass outcome, TimePoint now) {
    if (picked) set_->Report(picked, outcome, now);
  }

 private:
  ReplicaSet* const set_;
  std::mutex mu_;
  Tried tried_;
};

}  // namespace stormguard
