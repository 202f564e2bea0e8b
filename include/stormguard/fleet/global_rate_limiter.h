// stormguard/fleet/global_rate_limiter.h: one rate limit for a whole fleet.
//
// `limit` calls per second for every instance of a service together,
// however many there are, with no network hop per call. Each instance holds
// a lease on a share of the limit and spends it locally (a LeaseBucket: one
// CAS, no lock); a refresher asks the LeaseStore for a new lease every
// `refresh_interval`, reporting this instance's demand (calls it tried to
// make per second over the last interval, refused ones included). The store
// divides the limit by demand (lease_store.h: max-min fair share), so an
// instance that needs less gives its share to the others within two
// refreshes. The model is YouTube's Doorman (leases, refresh, fair share).
//
//   auto store = std::make_shared<RedisLeaseStore>(...);     // adapters/redis
//   auto limiter = GlobalRateLimiter::Create({.name = "search", .instance_id = host,
//                                             .limit = 1000, .burst = 100}, store).value();
//   if (Status s = limiter->TryAcquire(clock.Now()); !s.ok()) return s;
//
// Faults. A lease holds until its expiry: while it is valid a failed
// refresh changes nothing but is reported. Once it expires without a
// refresh the limiter falls back (`fallback`): kStaticShare spends
// limit / (instances the last lease counted), kDeny spends nothing. Before
// the first lease it spends the static share for `initial_instances`. A
// lease that arrives again ends the fallback. A store's answer is not
// trusted: a rate above the limit (or infinite) is cut to the limit, a
// negative one to 0, a NaN one refused; an expiry beyond lease_length is
// cut to it; an instance count below 1 counts as 1.
//
// Events (policy kGlobalRateLimit): kRejected for a refused call;
// kStateChanged / kStateReported with GlobalLimitState values when the
// limiter starts, obtains a lease or falls back; kGaveUp with a
// GlobalLimitFault in to_state for every fault. Metric families
// stormguard_global_rate_limit_state and
// stormguard_global_rate_limit_faults_total count them (by "fault").
//
// Refreshing: with an `executor`, the limiter refreshes by itself: a timer
// of the executor's TimerService fires every refresh_interval and the
// refresh (which may block on the store up to its timeouts) runs on one of
// the executor's workers, so give it an executor whose workers may block
// that long. Without one, the program calls RefreshOnce() (tests, or its
// own scheduler).
//
// Thread safety: TryAcquire from any thread, lock-free; RefreshOnce from
// any thread (refreshes are serialised). The destructor stops the timer and
// waits for a refresh that is running.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/core/striped_counter.h"
#include "stormguard/exec/executor.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/fleet/lease_bucket.h"
#include "stormguard/fleet/lease_store.h"

namespace stormguard {

// What an instance spends when its lease expired without a refresh.
enum class LeaseFallback : std::uint8_t {
  kStaticShare,  // limit / the instance count the last lease reported
  kDeny,         // nothing: the fleet must never exceed the limit
};
// "static_share", "deny": the configuration's names.
std::string_view LeaseFallbackName(LeaseFallback f) noexcept;

enum class GlobalLimitState : std::uint8_t {
  kStarting,  // no lease yet: the static share for initial_instances
  kLeased,    // a valid lease
  kFallback,  // the lease expired (or none came): the fallback rule
};

enum class GlobalLimitFault : std::uint8_t {
  kRefreshFailed,  // the store did not answer (unreachable, slow, error)
  kAuthRefused,    // the store refused the credentials
  kInvalidLease,   // the store's answer made no sense (a NaN rate)
  kLeaseExpired,   // the lease ran out without a refresh
};

struct GlobalRateLimiterOptions {
  // The limit's name, shared by the fleet: [a-zA-Z0-9_.-], 1-64 bytes.
  std::string name;
  // This instance, unique within the fleet: printable, no spaces, 1-128 bytes.
  std::string instance_id;
  // Calls per second for the whole fleet, in (0, 1e9].
  double limit = 0;
  // Calls the whole fleet may make at once, >= 1; each instance holds its
  // share of it (at least 1).
  int burst = 1;
  // How often this instance reports its demand and renews its lease, >= 1 ms.
  Duration refresh_interval = std::chrono::seconds(1);
  // How long a lease holds, >= 2 refresh intervals (a failed refresh or
  // two does not lose it), <= 1 hour.
  Duration lease_length = std::chrono::seconds(10);
  LeaseFallback fallback = LeaseFallback::kStaticShare;
  // The static share's divisor before the store ever answered, >= 1; the
  // first refresh also asks for that share (no demand is measured yet).
  int initial_instances = 1;
  Listener* listener = nullptr;
  Clock* clock = nullptr;  // null: Clock::Real()
  // Runs the refreshes (see Refreshing); must outlive the limiter. Null:
  // the program calls RefreshOnce().
  Executor* executor = nullptr;
  int stripes = 0;  // as RateLimiterOptions::stripes

  std::vector<std::string> Validate() const;
};

// Makes the store of one limit, from the options the limiter will have
// (its name, limit and lease_length): how a program hands a configuration
// its shares' home without the configuration naming it (config/registry.h).
using LeaseStoreFactory = std::function<Result<std::shared_ptr<LeaseStore>>(const GlobalRateLimiterOptions&)>;

class GlobalRateLimiter {
 public:
  static constexpr std::string_view kPolicy = "global_rate_limit";

  // INVALID_ARGUMENT names every bad field. With an executor the first
  // refresh runs at once.
  static Result<std::unique_ptr<GlobalRateLimiter>> Create(GlobalRateLimiterOptions options,
                                                           std::shared_ptr<LeaseStore> store);
  ~GlobalRateLimiter();
  GlobalRateLimiter(const GlobalRateLimiter&) = delete;
  GlobalRateLimiter& operator=(const GlobalRateLimiter&) = delete;

  // Counts the attempt (the demand) and takes a token of this instance's
  // share; never waits, never touches the network.
  bool TryTake(TimePoint now) noexcept {
    attempts_.Add(1);
    return bucket_.TryAcquire(now);
  }
  // TryTake, with RESOURCE_EXHAUSTED (and a kRejected event) when refused.
  Status TryAcquire(TimePoint now) { return TryTake(now) ? Status::Ok() : Refuse(now); }
  // What a refused TryTake answers: the status, and the kRejected event.
  Status Refuse(TimePoint now);

  // One refresh now: reports the demand measured since the last one, applies
  // the answer, falls back if the lease expired. Returns the store's error.
  Status RefreshOnce();

  const GlobalRateLimiterOptions& options() const noexcept { return o_; }
  GlobalLimitState state() const noexcept { return state_.load(std::memory_order_acquire); }
  // The rate this instance spends now (lease or fallback).
  double local_rate() const noexcept { return bucket_.rate(); }
  // Instances the last lease counted (initial_instances before any).
  int instances() const noexcept { return instances_.load(std::memory_order_relaxed); }
  // The demand reported at the last refresh, calls per second.
  double last_demand() const noexcept { return last_demand_.load(std::memory_order_relaxed); }

 private:
  GlobalRateLimiter(GlobalRateLimiterOptions o, std::shared_ptr<LeaseStore> store);
  double MeasureDemand(TimePoint now);
  bool ApplyLease(Lease lease, TimePoint now);
  void ExpireIfDue(TimePoint now);
  void SetLocalRate(double rate, TimePoint now);
  void Enter(GlobalLimitState next, std::string_view reason, TimePoint now);
  void Report(GlobalLimitFault fault, std::string_view reason, TimePoint now);
  static void OnRefreshDue(void* self) noexcept;
  void RunScheduledRefresh() noexcept;
  void ScheduleRefresh(TimePoint at);  // under schedule_mu_

  const GlobalRateLimiterOptions o_;
  Clock& clock_;
  const std::shared_ptr<LeaseStore> store_;
  LeaseBucket bucket_;
  StripedCounter attempts_;
  std::atomic<GlobalLimitState> state_{GlobalLimitState::kStarting};
  std::atomic<int> instances_;
  std::atomic<double> last_demand_{0};
  std::mutex refresh_mu_;     // one refresh at a time; guards the fields below
  TimePoint lease_expiry_{};  // of the current lease (kLeased)
  TimePoint last_refresh_{};  // when demand was last measured
  std::int64_t last_attempts_ = 0;
  bool measured_ = false;   // a demand was measured (else the first refresh asks for the limit)
  std::mutex schedule_mu_;  // guards the scheduling state below
  std::condition_variable refresh_done_;
  TimerHandle timer_;
  bool refresh_queued_ = false;  // a refresh is submitted to the executor or running there
  bool stopping_ = false;
};

}  // namespace stormguard
