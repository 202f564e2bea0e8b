// stormguard/fleet/lease_store.h: where a fleet-wide limit keeps its shares.
//
// Every instance of a fleet that shares a limit asks a LeaseStore, once a
// refresh interval, for its share: it reports its demand (calls per second
// it would like to make) and receives a Lease (the rate it may spend
// locally until the lease expires). GlobalRateLimiter does the asking; the
// store does the dividing, atomically for all instances. RedisLeaseStore
// (adapters/redis) is the production store; InMemoryLeaseStore below
// divides within one process, for tests and single-host programs.
//
// The sharing rule (FairShares): max-min fairness, "water-filling" by
// demand, as Doorman's fair share. Nobody gets more than it asks; capacity
// an instance does not want is split among those that want more; when every
// instance wants more than capacity / n, each gets capacity / n. An
// instance whose demand fell asks for less at its next refresh, and its
// freed capacity goes to the others at theirs: a shift settles within two
// refresh intervals. To never promise more than the capacity, a grant is
// also capped by what the other instances' current grants leave free
// (until they refresh down to their new fair share).
//
// Silent instances. An instance whose lease ran out without a refresh may
// be dead, or cut off from the store and spending its static share
// (capacity / the instances it last saw) on its own. For two more lease
// lengths the store reserves that for it: min(its last demand, capacity /
// the instances the store counts), and counts it among the instances.
// Without the reserve, a partition of k of n instances lets the fleet admit
// up to the capacity plus k static shares (1.4x with 4 of 8); with it, the
// fleet holds its limit through a partition of up to three lease lengths
// from the last refresh. The price: a dead instance's static share stays
// unused that long. After it, the instance is forgotten.
//
// Thread safety: a LeaseStore is called by one refresher at a time per
// limiter; implementations serve several limiters concurrently.
#pragma once

#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct Lease {
  double rate = 0;     // calls per second this instance may make, >= 0
  TimePoint expiry{};  // on the caller's clock: the lease holds until then
  int instances = 1;   // instances the store counted, this one included
};

class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  // Records `demand` (calls per second) for `instance_id` and returns its
  // share of the limit. `now` is the caller's clock, for the expiry it
  // returns. Errors: UNAVAILABLE (store unreachable or slow),
  // UNAUTHENTICATED / PERMISSION_DENIED (credentials refused), others.
  virtual Result<Lease> Refresh(std::string_view instance_id, double demand, TimePoint now) = 0;
};

// The max-min fair shares of `capacity` for `demands` (each >= 0), in the
// same order: water-filling, see above. Sum <= capacity.
std::vector<double> FairShares(double capacity, std::span<const double> demands);

// Shares kept in this process: the rule above with the same bookkeeping as
// the Redis script (an instance that stops refreshing is reserved for, then
// dropped, as above), so tests exercise the limiter against the real rule.
class InMemoryLeaseStore final : public LeaseStore {
 public:
  InMemoryLeaseStore(double capacity, Duration lease_length) : capacity_(capacity), lease_length_(lease_length) {}

  Result<Lease> Refresh(std::string_view instance_id, double demand, TimePoint now) override;

  // Forgets every instance (a store restarted empty).
  void Clear();

 private:
  struct Entry {
    double demand = 0;
    double granted = 0;
    TimePoint expiry{};
  };
  const double capacity_;
  const Duration lease_length_;
  std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace stormguard
