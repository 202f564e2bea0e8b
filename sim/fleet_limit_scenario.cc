#include "stormguard/sim/fleet_limit_scenario.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "stormguard/core/validation.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/fleet/lease_store.h"
#include "stormguard/sim/engine.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {
namespace {

enum Phase : int { kSteady, kShift, kStoreDown, kBackEmpty, kPartition, kPhases };
constexpr const char* kPhaseNames[kPhases] = {"steady", "shift", "store down", "back empty", "partition"};
enum RunEvent : std::uint32_t { kArrive, kRefresh, kSample, kPhaseStart };
constexpr Duration kSampleEvery = std::chrono::milliseconds(100);

// The shared store behind a switch: instance `index` reaches it or not.
class SwitchedStore final : public LeaseStore {
 public:
  SwitchedStore(std::shared_ptr<InMemoryLeaseStore> store, std::function<bool()> reachable)
      : store_(std::move(store)), reachable_(std::move(reachable)) {}
  Result<Lease> Refresh(std::string_view instance_id, double demand, TimePoint now) override {
    if (!reachable_()) return Status::Unavailable("lease store unreachable");
    return store_->Refresh(instance_id, demand, now);
  }

 private:
  std::shared_ptr<InMemoryLeaseStore> store_;
  std::function<bool()> reachable_;
};

// Counts the limiters' faults, by kind, into the phase under way.
struct FaultCounter final : Listener {
  void OnEvent(const Event& e) noexcept override {
    if (e.kind != EventKind::kGaveUp || phase == nullptr) return;
    const auto fault = static_cast<GlobalLimitFault>(e.to_state);
    if (fault == GlobalLimitFault::kLeaseExpired) {
      ++phase->leases_expired;
    } else {
      ++phase->refresh_failures;
    }
  }
  FleetLimitPhase* phase = nullptr;
};

class FleetLimitRun final : public Actor {
 public:
  explicit FleetLimitRun(const FleetLimitScenarioOptions& o)
      : o_(o), engine_(o.seed), store_(std::make_shared<InMemoryLeaseStore>(o.limit, o.lease_length)) {
    const auto n = static_cast<std::size_t>(o.instances);
    phases_.resize(kPhases);
    samples_.resize(kPhases);
    for (int p = 0; p < kPhases; ++p) phases_[p].name = kPhaseNames[p];
    admitted_.assign(kPhases, std::vector<std::int64_t>(n, 0));
    timeline_.assign(static_cast<std::size_t>(kPhases * (o.phase / std::chrono::seconds(1)) + 1), 0.0);
  }

  Status Build() {
    for (int i = 0; i < o_.instances; ++i) {
      auto store = std::make_shared<SwitchedStore>(store_, [this, i] { return Reachable(i); });
      Result<std::unique_ptr<GlobalRateLimiter>> limiter =
          GlobalRateLimiter::Create({.name = "fleet",
                                     .instance_id = "instance-" + std::to_string(i),
                                     .limit = o_.limit,
                                     .burst = o_.burst,
                                     .refresh_interval = o_.refresh_interval,
                                     .lease_length = o_.lease_length,
                                     .initial_instances = o_.instances,
                                     .listener = &faults_,
                                     .clock = &engine_.clock(),
                                     .stripes = 1},  // one thread: a thread's stripe would outlive the run
                                    std::move(store));
      if (!limiter.ok()) return std::move(limiter).status();
      limiters_.push_back(std::move(limiter).value());
    }
    return Status::Ok();
  }

  FleetLimitScenarioResult Go() {
    for (int p = 0; p < kPhases; ++p) engine_.At(engine_.start() + o_.phase * p, this, kPhaseStart, p);
    for (std::uint32_t i = 0; i < limiters_.size(); ++i) {
      engine_.At(engine_.start(), this, kArrive, i);
      engine_.At(engine_.start() + engine_.rng().UniformDuration(Duration::zero(), o_.refresh_interval), this, kRefresh,
                 i);
    }
    engine_.At(engine_.start(), this, kSample);
    engine_.Run(engine_.start() + o_.phase * kPhases - Duration(1));
    for (int p = 0; p < kPhases; ++p) Summarize(p);
    return {.options = o_, .phases = std::move(phases_), .admitted_timeline = std::move(timeline_)};
  }

  void OnEvent(const SimEvent& e) override {
    switch (e.kind) {
      case kArrive: return Arrive(e.a);
      case kRefresh: return Refresh(e.a);
      case kSample: return Sample();
      default: return StartPhase(static_cast<int>(e.a));
    }
  }

 private:
  int phase() const { return std::min<int>(kPhases - 1, static_cast<int>(engine_.elapsed() / o_.phase)); }

  bool Reachable(int instance) const {
    const int p = phase();
    return p != kStoreDown && !(p == kPartition && instance < o_.partitioned);
  }

  // Instance i's demand in phase p: (i + 1) parts of the whole, reversed in the shift.
  double Demand(int p, int i) const {
    const double parts = o_.instances * (o_.instances + 1) / 2.0;
    const int weight = p == kShift ? o_.instances - i : i + 1;
    return o_.demand * weight / parts;
  }

  void StartPhase(int p) {
    faults_.phase = &phases_[p];
    if (p == kBackEmpty) store_->Clear();
  }

  void Arrive(std::uint32_t i) {
    const int p = phase();
    if (limiters_[i]->TryTake(engine_.now())) {
      ++admitted_[p][i];
      ++timeline_[static_cast<std::size_t>(engine_.elapsed() / std::chrono::seconds(1))];
    }
    const double rate = Demand(p, static_cast<int>(i));
    engine_.After(engine_.rng().Exponential(Duration(static_cast<Duration::rep>(1e9 / rate))), this, kArrive, i);
  }

  void Refresh(std::uint32_t i) {
    engine_.clock();  // the limiter reads the virtual time
    (void)limiters_[i]->RefreshOnce();
    engine_.After(o_.refresh_interval, this, kRefresh, i);
  }

  void Sample() {
    std::vector<double> rates;
    for (const auto& l : limiters_) rates.push_back(l->local_rate());
    samples_[phase()].push_back({engine_.now(), std::move(rates)});
    engine_.After(kSampleEvery, this, kSample);
  }

  // Cut off from the store, an instance spends the static share; the store
  // keeps what it may spend (at most its demand) out of the others' shares.
  std::vector<double> Expected(int p) const {
    const auto n = static_cast<std::size_t>(o_.instances);
    const double static_share = o_.limit / o_.instances;
    std::vector<double> demands, expected(n, static_share);
    if (p == kStoreDown) return expected;
    const int first = p == kPartition ? o_.partitioned : 0;
    double reserved = 0;
    for (int i = 0; i < first; ++i) reserved += std::min(Demand(p, i), static_share);
    for (int i = first; i < o_.instances; ++i) demands.push_back(Demand(p, i));
    const std::vector<double> shares = FairShares(o_.limit - reserved, demands);
    std::copy(shares.begin(), shares.end(), expected.begin() + first);
    return expected;
  }

  // Within `tolerance`, or within the noise of a demand measured over one
  // refresh interval: three standard deviations of a Poisson count, as a rate.
  bool Near(const std::vector<double>& rates, const std::vector<double>& expected) const {
    for (std::size_t i = 0; i < rates.size(); ++i) {
      const double noise = 3 * std::sqrt(expected[i] / Seconds(o_.refresh_interval));
      if (std::abs(rates[i] - expected[i]) > std::max({1.0, o_.tolerance * expected[i], noise})) return false;
    }
    return true;
  }

  void Summarize(int p) {
    FleetLimitPhase& out = phases_[p];
    const double seconds = Seconds(o_.phase);
    out.expected = Expected(p);
    std::int64_t total = 0;
    for (int i = 0; i < o_.instances; ++i) {
      out.demand.push_back(Demand(p, i));
      out.admitted.push_back(static_cast<double>(admitted_[p][i]) / seconds);
      total += admitted_[p][i];
    }
    out.admitted_per_s = static_cast<double>(total) / seconds;
    const auto per_phase = static_cast<std::size_t>(o_.phase / std::chrono::seconds(1));
    const auto first = timeline_.begin() + static_cast<std::ptrdiff_t>(per_phase * static_cast<std::size_t>(p));
    const auto [lo, hi] = std::minmax_element(first, first + static_cast<std::ptrdiff_t>(per_phase));
    out.min_per_s = *lo;
    out.max_per_s = *hi;
    // Settled: the first sample from which every later one is near.
    const auto& samples = samples_[p];
    std::size_t k = samples.size();
    while (k > 0 && Near(samples[k - 1].second, out.expected)) --k;
    if (k < samples.size()) out.settled = samples[k].first - (engine_.start() + o_.phase * p);
  }

  const FleetLimitScenarioOptions o_;
  Engine engine_;
  std::shared_ptr<InMemoryLeaseStore> store_;
  FaultCounter faults_;
  std::vector<std::unique_ptr<GlobalRateLimiter>> limiters_;
  std::vector<FleetLimitPhase> phases_;
  std::vector<std::vector<std::int64_t>> admitted_;                              // [phase][instance]
  std::vector<std::vector<std::pair<TimePoint, std::vector<double>>>> samples_;  // [phase]: local rates
  std::vector<double> timeline_;
};

}  // namespace

std::vector<std::string> FleetLimitScenarioOptions::Validate() const {
  Validator v;
  v.Check(std::isfinite(limit) && limit > 0 && limit <= 1e6, "limit", "must be in (0, 1e6] calls/s");
  v.Check(instances >= 1 && instances <= 1000, "instances", "must be in [1, 1000]");
  v.Check(std::isfinite(demand) && demand >= 1 && demand <= 1e6, "demand", "must be in [1, 1e6] calls/s");
  v.Check(burst >= 1 && burst <= 1'000'000, "burst", "must be in [1, 1000000]");
  v.Check(phase >= std::chrono::seconds(1) && phase <= std::chrono::hours(1) &&
              phase % std::chrono::seconds(1) == Duration::zero(),
          "phase", "must be whole seconds in [1s, 1h]");
  v.Check(partitioned >= 0 && partitioned <= instances, "partitioned", "must be in [0, instances]");
  v.Check(std::isfinite(tolerance) && tolerance > 0 && tolerance < 1, "tolerance", "must be in (0, 1)");
  // refresh_interval and lease_length: GlobalRateLimiterOptions names them.
  const double span = Seconds(phase) * static_cast<double>(kPhases);
  CheckLimit(v, "demand", demand * span, kMaxAttempts, Estimate(demand) + " calls/s over " + Estimate(span) + "s,",
             "calls");
  CheckLimit(v, "phase", instances * span / Seconds(kSampleEvery), kMaxCounters,
             Estimate(static_cast<double>(instances)) + " instances sampled every 100ms over " + Estimate(span) + "s",
             "samples");
  return std::move(v).errors();
}

Result<FleetLimitScenarioResult> RunFleetLimitScenario(const FleetLimitScenarioOptions& options) {
  if (Status s = ValidationStatus("fleet limit scenario options", options.Validate()); !s.ok()) return s;
  FleetLimitRun run(options);
  if (Status s = run.Build(); !s.ok()) return s;
  return run.Go();
}

}  // namespace stormguard::sim
