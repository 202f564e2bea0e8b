#include "stormguard/fleet/replica_set.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include "stormguard/core/validation.h"

namespace stormguard {

struct ReplicaSet::Members {
  std::uint64_t version = 0;
  std::shared_ptr<const ReplicaSetOptions> options;
  mutable std::shared_ptr<Picker> picker;  // kept while the picker kind is (a round robin keeps its turns)
  std::vector<std::shared_ptr<Endpoint>> all;
  std::vector<std::shared_ptr<Endpoint>> admitted;  // every one when all are ejected
  std::vector<EndpointLoad*> admitted_loads;        // what the picker sees
  TimePoint next_readmission = TimePoint::max();
};

namespace {

constexpr int kMaxTimesEjected = 10000;  // keeps base x times far from overflow

std::atomic<std::uint64_t> g_next_set_id{1};

bool PrintableAddress(const std::string& a) {
  return std::all_of(a.begin(), a.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

}  // namespace

Status ValidateEndpoints(const std::vector<EndpointSpec>& endpoints) {
  if (endpoints.size() > kMaxEndpoints) {
    return Status::InvalidArgument("endpoints: more than " + std::to_string(kMaxEndpoints));
  }
  std::unordered_map<std::string_view, std::size_t> seen;
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const EndpointSpec& e = endpoints[i];
    const std::string field = "endpoints[" + std::to_string(i) + "]";
    if (e.address.empty() || e.address.size() > kMaxEndpointAddressBytes || !PrintableAddress(e.address)) {
      return Status::InvalidArgument(field + ".address: must be 1-" + std::to_string(kMaxEndpointAddressBytes) +
                                     " printable characters, no spaces");
    }
    if (!(e.weight > 0.0 && e.weight <= 1e6)) {
      return Status::InvalidArgument(field + ".weight: must be in (0, 1e6]");
    }
    if (auto [it, fresh] = seen.emplace(e.address, i); !fresh) {
      return Status::InvalidArgument(field + ".address: repeats endpoints[" + std::to_string(it->second) + "]");
    }
  }
  return Status::Ok();
}

std::vector<std::string> ReplicaSetOptions::Validate() const {
  Validator v;
  v.Nest("load", load.Validate());
  v.Nest("outlier_detection", outlier.Validate());
  v.Check(static_cast<int>(picker) <= static_cast<int>(PickerKind::kPeakEwma), "picker", "is not a picker");
  return std::move(v).errors();
}

Endpoint::Endpoint(EndpointSpec spec, const EndpointLoadOptions& load)
    : spec_(std::move(spec)), load_([&] {
        EndpointLoadOptions o = load;
        o.weight = spec_.weight;
        return o;
      }()) {}

PickedEndpoint& PickedEndpoint::operator=(PickedEndpoint&& other) noexcept {
  if (this != &other) {
    if (endpoint_) endpoint_->load().Abandon();
    endpoint_ = std::move(other.endpoint_);
    started_ = other.started_;
  }
  return *this;
}

PickedEndpoint::~PickedEndpoint() {
  if (endpoint_) endpoint_->load().Abandon();
}

Result<std::unique_ptr<ReplicaSet>> ReplicaSet::Create(ReplicaSetOptions options, std::vector<EndpointSpec> endpoints) {
  if (Status s = ValidationStatus("replica set options", options.Validate()); !s.ok()) return s;
  std::unique_ptr<ReplicaSet> set(new ReplicaSet(std::move(options)));
  if (Status s = set->Update(std::move(endpoints)); !s.ok()) return s;
  return set;
}

ReplicaSet::ReplicaSet(ReplicaSetOptions options) : listener_(options.listener), id_(g_next_set_id.fetch_add(1)) {
  std::lock_guard lock(mu_);
  Publish({}, std::make_shared<const ReplicaSetOptions>(std::move(options)));
}

Status ReplicaSet::Reconfigure(const ReplicaSetOptions& options) {
  if (Status s = ValidationStatus("replica set options", options.Validate()); !s.ok()) return s;
  auto kept = std::make_shared<ReplicaSetOptions>(options);
  kept->listener = listener_;
  std::lock_guard lock(mu_);
  Publish(members_->all, std::move(kept));
  return Status::Ok();
}

ReplicaSetOptions ReplicaSet::options() const {
  std::lock_guard lock(mu_);
  return *members_->options;
}

ReplicaSet::~ReplicaSet() = default;

Status ReplicaSet::Update(std::vector<EndpointSpec> endpoints) {
  if (Status s = ValidateEndpoints(endpoints); !s.ok()) return s;
  std::lock_guard lock(mu_);
  std::unordered_map<std::string_view, std::shared_ptr<Endpoint>> old;
  for (const auto& e : members_->all) old.emplace(e->address(), e);
  std::vector<std::shared_ptr<Endpoint>> all;
  all.reserve(endpoints.size());
  for (EndpointSpec& spec : endpoints) {
    auto it = old.find(spec.address);
    if (it != old.end() && it->second->spec() == spec) {
      all.push_back(std::move(it->second));  // stays: keeps its load and verdicts
      old.erase(it);
    } else {
      all.push_back(std::make_shared<Endpoint>(std::move(spec), members_->options->load));
    }
  }
  for (auto& [address, gone] : old) gone->member_ = false;
  Publish(std::move(all));
  return Status::Ok();
}

void ReplicaSet::Publish(std::vector<std::shared_ptr<Endpoint>> all, std::shared_ptr<const ReplicaSetOptions> options) {
  auto m = std::make_shared<Members>();
  m->version = version_.load(std::memory_order_relaxed) + 1;
  m->options = options ? std::move(options) : members_->options;
  const bool same_picker = members_ != nullptr && members_->picker->kind() == m->options->picker;
  m->picker = same_picker ? members_->picker : std::make_shared<Picker>(m->options->picker);
  m->all = std::move(all);
  for (const auto& e : m->all) {
    if (!e->ejected_) {
      m->admitted.push_back(e);
    } else {
      m->next_readmission = std::min(m->next_readmission, e->ejected_until_);
    }
  }
  if (m->admitted.empty()) m->admitted = m->all;  // all out: better any than none
  for (const auto& e : m->admitted) m->admitted_loads.push_back(&e->load_);
  members_ = std::move(m);
  version_.store(members_->version, std::memory_order_release);
}

const ReplicaSet::Members& ReplicaSet::Current() {
  struct Slot {
    std::uint64_t set = 0;
    std::shared_ptr<const Members> members;
  };
  thread_local std::array<Slot, kCachedSetsPerThread> slots;
  thread_local std::size_t next_slot = 0;
  const std::uint64_t version = version_.load(std::memory_order_acquire);
  Slot* mine = nullptr;
  for (Slot& s : slots) {
    if (s.set != id_) continue;
    if (s.members->version >= version) return *s.members;
    mine = &s;
  }
  if (mine == nullptr) mine = &slots[next_slot++ % kCachedSetsPerThread];
  std::shared_ptr<const Members> fresh;
  {
    std::lock_guard lock(mu_);
    fresh = members_;
  }
  mine->members = std::move(fresh);  // may free an older set's members: outside the lock
  mine->set = id_;
  return *mine->members;
}

PickedEndpoint ReplicaSet::Pick(TimePoint now, Tried& tried, Random& random) {
  const Members* m = &Current();
  if (now >= m->next_readmission) {
    Readmit(now);
    m = &Current();
  }
  if (m->admitted.empty()) return {};
  const std::size_t i = m->picker->Pick(m->admitted_loads, tried, random, now);
  tried.Add(m->admitted_loads[i]);
  PickedEndpoint picked(m->admitted[i]);
  picked.started_ = now;
  picked.endpoint_->load_.Start();
  return picked;
}

void ReplicaSet::Report(PickedEndpoint& picked, OutcomeClass outcome, TimePoint now) {
  const std::shared_ptr<Endpoint> e = std::move(picked.endpoint_);
  if (e == nullptr) return;
  // A cancelled attempt (a hedge won elsewhere, the caller left) took at
  // least this long: a slow replica whose answers are always cut short by
  // hedges must still look slow. It says nothing about failures.
  const Duration took = now - picked.started_;
  e->load_.End(took, now, CountsAsReplicaFailure(outcome));
  Emit(listener_, Event{.kind = EventKind::kAttemptEnded,
                        .policy = PolicyId::kOutlierDetection,
                        .endpoint = e->address(),
                        .at = now,
                        .outcome = outcome,
                        .duration = took});
  if (outcome == OutcomeClass::kCancelled) return;
  const Members& m = Current();  // keeps the options alive for this report
  const OutlierDetectionOptions& o = m.options->outlier;
  if (CountsAsReplicaFailure(outcome)) {
    if (o.success_rate_stdev_factor > 0) e->interval_failures_.fetch_add(1, std::memory_order_relaxed);
    const int in_a_row = e->consecutive_failures_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (o.consecutive_failures > 0 && in_a_row >= o.consecutive_failures)
      Eject(*e, now, EndpointState::kEjectedConsecutiveFailures);
  } else {
    if (o.success_rate_stdev_factor > 0) e->interval_successes_.fetch_add(1, std::memory_order_relaxed);
    if (e->consecutive_failures_.load(std::memory_order_relaxed) != 0) {
      e->consecutive_failures_.store(0, std::memory_order_relaxed);
    }
  }
  std::int64_t due = next_sweep_ns_.load(std::memory_order_relaxed);
  const std::int64_t now_ns = now.time_since_epoch().count();
  if (now_ns >= due && next_sweep_ns_.compare_exchange_strong(due, now_ns + o.interval.count())) {
    if (due != 0) Sweep(now);  // the first report only starts the clock
  }
}

bool ReplicaSet::MayEject() const {
  const auto& all = members_->all;
  const auto ejected = std::count_if(all.begin(), all.end(), [](const auto& e) { return e->ejected_; });
  const double cap = members_->options->outlier.max_ejection_percent;
  return 100.0 * static_cast<double>(ejected) < cap * static_cast<double>(all.size());
}

void ReplicaSet::Eject(Endpoint& e, TimePoint now, EndpointState why) {
  {
    std::lock_guard lock(mu_);
    if (!e.member_ || e.ejected_ || !MayEject()) return;
    const OutlierDetectionOptions& o = members_->options->outlier;
    e.times_ejected_ = std::min(e.times_ejected_ + 1, kMaxTimesEjected);
    e.ejected_ = true;
    e.ejected_why_ = why;
    e.ejected_until_ = now + std::min(o.base_ejection_time * e.times_ejected_, o.max_ejection_time);
    e.consecutive_failures_.store(0, std::memory_order_relaxed);
    Publish(members_->all);
  }
  Tell(e, EndpointState::kAdmitted, why, now);
}

void ReplicaSet::Readmit(TimePoint now) {
  std::vector<std::pair<std::shared_ptr<Endpoint>, EndpointState>> back;  // and why it was out
  {
    std::lock_guard lock(mu_);
    if (now < members_->next_readmission) return;  // another thread did it
    for (const auto& e : members_->all) {
      if (!e->ejected_ || e->ejected_until_ > now) continue;
      e->ejected_ = false;
      e->interval_successes_.store(0, std::memory_order_relaxed);
      e->interval_failures_.store(0, std::memory_order_relaxed);
      back.emplace_back(e, e->ejected_why_);
    }
    Publish(members_->all);
  }
  for (const auto& [e, why] : back) Tell(*e, why, EndpointState::kAdmitted, now);
}

void ReplicaSet::Sweep(TimePoint now) {
  OutlierDetectionOptions o;
  std::vector<std::pair<std::shared_ptr<Endpoint>, double>> judged;  // endpoint, success rate
  {
    std::lock_guard lock(mu_);
    o = members_->options->outlier;
    for (const auto& e : members_->all) {
      const auto ok = e->interval_successes_.exchange(0, std::memory_order_relaxed);
      const auto failed = e->interval_failures_.exchange(0, std::memory_order_relaxed);
      if (e->ejected_) continue;
      // A whole interval back in shortens the next ejection.
      if (e->times_ejected_ > 0 && e->ejected_until_ + o.interval <= now) --e->times_ejected_;
      const std::uint64_t volume = std::uint64_t{ok} + failed;
      if (volume >= static_cast<std::uint64_t>(o.success_rate_request_volume)) {
        judged.emplace_back(e, static_cast<double>(ok) / static_cast<double>(volume));
      }
    }
  }
  if (o.success_rate_stdev_factor <= 0 || judged.size() < static_cast<std::size_t>(o.success_rate_minimum_hosts)) {
    return;
  }
  double mean = 0;
  for (const auto& [e, rate] : judged) mean += rate;
  mean /= static_cast<double>(judged.size());
  double variance = 0;
  for (const auto& [e, rate] : judged) variance += (rate - mean) * (rate - mean);
  const double stdev = std::sqrt(variance / static_cast<double>(judged.size()));
  const double threshold = mean - o.success_rate_stdev_factor * stdev;
  for (const auto& [e, rate] : judged) {
    if (rate < threshold) Eject(*e, now, EndpointState::kEjectedSuccessRate);
  }
}

void ReplicaSet::Tell(const Endpoint& e, EndpointState from, EndpointState to, TimePoint now) {
  std::string_view why = "ejection time over";
  if (to == EndpointState::kEjectedConsecutiveFailures) why = "consecutive failures";
  if (to == EndpointState::kEjectedSuccessRate) why = "success rate";
  Emit(listener_, Event{.kind = EventKind::kStateChanged,
                        .policy = PolicyId::kOutlierDetection,
                        .from_state = static_cast<std::uint8_t>(from),
                        .to_state = static_cast<std::uint8_t>(to),
                        .endpoint = e.address(),
                        .reason = why,
                        .at = now});
}

std::vector<EndpointStatus> ReplicaSet::Endpoints() const {
  std::lock_guard lock(mu_);
  std::vector<EndpointStatus> out;
  for (const auto& e : members_->all) {
    out.push_back({e->address(), e->spec().weight, e->ejected_, e->times_ejected_, e->load_.outstanding(),
                   e->load_.average()});
  }
  return out;
}

std::size_t ReplicaSet::size() const {
  std::lock_guard lock(mu_);
  return members_->all.size();
}

}  // namespace stormguard
