// stormguard/fleet/replica_set.h: the replicas of one destination, as a
// client sees them.
//
// A ReplicaSet holds the endpoints a destination has now (a static list, or
// what discovery found), picks one for each attempt, learns from each answer
// (latency for the picker, failures for outlier detection) and keeps
// ejected endpoints out until they are readmitted.
//
//   auto set = ReplicaSet::Create({.picker = PickerKind::kPeakEwma}, {{"10.0.0.1:80"}, {"10.0.0.2:80"}});
//   Tried tried;                                    // one per call
//   PickedEndpoint e = set->Pick(now, tried, random);   // empty when the set is
//   Status s = Send(e.address(), ...);
//   set->Report(e, ClassOf(s), clock.Now());
//
// Membership: Update() replaces the endpoints; one whose address stays keeps
// its load and outlier state, and calls in flight to one that left finish
// normally (their PickedEndpoint keeps it alive). An endpoint reported
// after it left changes nothing.
//
// Events (to ReplicaSetOptions::listener, policy kOutlierDetection):
// kAttemptEnded for each report (endpoint, outcome, duration: the attempt's
// endpoint for metrics and logs), kStateChanged for each ejection and
// readmission (EndpointState values, core/endpoint_state.h).
//
// Thread safety: Pick, Report and Update may run concurrently. Pick takes no
// lock: each thread keeps the set's current members (up to
// kCachedSetsPerThread sets), and only refreshes them, under a lock, after
// a change (an update, an ejection, a readmission). Listeners hear ejections
// and readmissions on the thread that caused them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/events.h"
#include "stormguard/core/outcome.h"
#include "stormguard/core/result.h"
#include "stormguard/fleet/endpoint_load.h"
#include "stormguard/fleet/outlier_detection.h"
#include "stormguard/fleet/picker.h"

namespace stormguard {

struct EndpointSpec {
  std::string address;  // host:port, as the transport takes it
  double weight = 1.0;  // relative capacity, (0, 1e6]

  friend bool operator==(const EndpointSpec&, const EndpointSpec&) = default;
};

inline constexpr std::size_t kMaxEndpoints = 10000;
inline constexpr std::size_t kMaxEndpointAddressBytes = 261;  // a 253-byte name, ':' and a port
inline constexpr std::size_t kCachedSetsPerThread = 16;       // destinations a thread calls without a lock

// INVALID_ARGUMENT naming the first bad entry: an empty, over-long or
// non-printable address, a repeated one, a weight out of range, or more
// than kMaxEndpoints entries.
Status ValidateEndpoints(const std::vector<EndpointSpec>& endpoints);

struct ReplicaSetOptions {
  PickerKind picker = PickerKind::kPeakEwma;
  EndpointLoadOptions load;  // its weight is each endpoint's own
  OutlierDetectionOptions outlier;
  Listener* listener = nullptr;  // ejections and readmissions; must outlive the set

  std::vector<std::string> Validate() const;
};

// One replica: what the picker and outlier detection know of it.
class Endpoint {
 public:
  Endpoint(EndpointSpec spec, const EndpointLoadOptions& load);
  const std::string& address() const noexcept { return spec_.address; }
  const EndpointSpec& spec() const noexcept { return spec_; }
  EndpointLoad& load() noexcept { return load_; }
  const EndpointLoad& load() const noexcept { return load_; }

 private:
  friend class ReplicaSet;
  const EndpointSpec spec_;
  EndpointLoad load_;
  std::atomic<std::int32_t> consecutive_failures_{0};
  std::atomic<std::uint32_t> interval_successes_{0};
  std::atomic<std::uint32_t> interval_failures_{0};
  // Under the set's lock:
  bool ejected_ = false;
  EndpointState ejected_why_ = EndpointState::kAdmitted;  // while ejected
  int times_ejected_ = 0;
  TimePoint ejected_until_{};
  bool member_ = true;
};

// The endpoint an attempt goes to; Start() was called on its load. Report
// it to the set once the attempt ends; one dropped unreported counts as
// abandoned (no latency, no verdict).
class PickedEndpoint {
 public:
  PickedEndpoint() = default;
  explicit PickedEndpoint(std::shared_ptr<Endpoint> e) noexcept : endpoint_(std::move(e)) {}
  PickedEndpoint(PickedEndpoint&&) noexcept = default;
  PickedEndpoint& operator=(PickedEndpoint&& other) noexcept;
  ~PickedEndpoint();

  explicit operator bool() const noexcept { return endpoint_ != nullptr; }
  const std::string& address() const noexcept { return endpoint_->address(); }
  Endpoint* get() const noexcept { return endpoint_.get(); }
  TimePoint started() const noexcept { return started_; }

 private:
  friend class ReplicaSet;
  std::shared_ptr<Endpoint> endpoint_;
  TimePoint started_{};
};

struct EndpointStatus {
  std::string address;
  double weight = 1.0;
  bool ejected = false;
  int times_ejected = 0;
  int outstanding = 0;
  Duration average_latency{};
};

class ReplicaSet {
 public:
  static Result<std::unique_ptr<ReplicaSet>> Create(ReplicaSetOptions options,
                                                    std::vector<EndpointSpec> endpoints = {});
  ~ReplicaSet();
  ReplicaSet(const ReplicaSet&) = delete;
  ReplicaSet& operator=(const ReplicaSet&) = delete;

  // Replaces the endpoints (see the header comment); the old ones stay in
  // force when `endpoints` is invalid.
  Status Update(std::vector<EndpointSpec> endpoints);
  // Replaces the picker and outlier detection (not the listener) for the
  // next picks; endpoints keep their state, but a changed `load` applies
  // only to endpoints that join later. The old options stay in force when
  // `options` are invalid.
  Status Reconfigure(const ReplicaSetOptions& options);

  // The endpoint for an attempt starting at `now`, not one in `tried` while
  // another is admitted (and adds it to `tried`); empty when the set is.
  PickedEndpoint Pick(TimePoint now, Tried& tried, Random& random);
  // The attempt on `picked` ended at `now` with `outcome`; empties `picked`.
  // Its time counts as the endpoint's latency even when it was cancelled
  // (a lower bound); a cancellation is no verdict on failures.
  void Report(PickedEndpoint& picked, OutcomeClass outcome, TimePoint now);

  std::vector<EndpointStatus> Endpoints() const;
  std::size_t size() const;
  ReplicaSetOptions options() const;

 private:
  struct Members;
  explicit ReplicaSet(ReplicaSetOptions options);
  const Members& Current();
  // Under mu_: new members with `all`, and `options` (null: the current ones).
  void Publish(std::vector<std::shared_ptr<Endpoint>> all, std::shared_ptr<const ReplicaSetOptions> options = {});
  void Eject(Endpoint& e, TimePoint now, EndpointState why);
  void Readmit(TimePoint now);
  void Sweep(TimePoint now);
  bool MayEject() const;  // under mu_
  void Tell(const Endpoint& e, EndpointState from, EndpointState to, TimePoint now);

  Listener* const listener_;
  const std::uint64_t id_;  // names this set in the threads' caches
  mutable std::mutex mu_;
  std::shared_ptr<const Members> members_;  // under mu_
  std::atomic<std::uint64_t> version_{0};   // of members_
  std::atomic<std::int64_t> next_sweep_ns_{0};
};

}  // namespace stormguard
