// One run of the fleet scenario: requests arrive, each view's ReplicaSet
// picks a replica, the replica serves or queues the attempt, the attempt
// answers or times out; with hedging, HedgePolicy sends one more attempt to
// another replica once the first is slower than the recent p95, and the
// first answer wins (the other attempt is cancelled); once no attempt is
// left in flight, RetryPolicy decides on a retry elsewhere.
//
// Calls live in a vector, reused through a free list, and are named by slot
// plus a generation bumped at each round (an attempt and its hedge) and at
// the end, so an answer, a timeout or a hedge meant for a round that is over
// is recognised and dropped.
#include "fleet_run.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <memory>

#include "stormguard/fleet/replica_set.h"
#include "stormguard/sim/distribution.h"
#include "stormguard/sim/engine.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim::fleet_internal {
namespace {

enum FleetEvent : std::uint32_t { kArrive, kAnswerOk, kAnswerFailed, kAttemptTimeout, kRetry, kHedge };

// A queued or served attempt: its call's slot, the round's generation and
// which of the round's attempts (0: the first, 1: its hedge).
constexpr std::uint32_t kLegBit = 1U << 31;
std::uint64_t Job(std::uint32_t gen, std::uint32_t slot, int leg) noexcept {
  return (std::uint64_t{gen} << 32) | (leg != 0 ? kLegBit : 0U) | slot;
}
std::uint32_t JobGen(std::uint64_t job) noexcept { return static_cast<std::uint32_t>(job >> 32); }
std::uint32_t JobSlot(std::uint64_t job) noexcept { return static_cast<std::uint32_t>(job) & ~kLegBit; }
int JobLeg(std::uint64_t job) noexcept { return (static_cast<std::uint32_t>(job) & kLegBit) != 0 ? 1 : 0; }

// Replica i is "r<i>" in every view; a picked endpoint names its replica by that.
std::string AddressOf(int replica) { return "r" + std::to_string(replica); }

// Counts the ejections all the views of one run report.
class EjectionCounter final : public Listener {
 public:
  void OnEvent(const Event& e) noexcept override {
    if (e.kind == EventKind::kStateChanged && IsEjected(static_cast<EndpointState>(e.to_state))) ++count;
  }
  std::int64_t count = 0;
};

// One attempt of a round: the first, or its hedge.
struct Leg {
  std::uint32_t replica = 0;
  bool in_flight = false;
  TimePoint start{};
  PickedEndpoint picked;
};

struct Call {
  std::uint32_t gen = 0;
  std::uint32_t group = 0;
  int attempt = 0;  // rounds started: the retry policy's attempt number
  TimePoint start{};
  Deadline deadline{};
  Duration previous_wait = Duration::zero();
  Tried tried;
  std::array<Leg, 2> legs;
  HedgeState hedge;
};

struct Replica {
  int busy = 0;
  std::deque<std::uint64_t> waiting;  // jobs, first come first served
};

Duration Quantile(std::vector<Duration>& v, double q) {
  if (v.empty()) return Duration::zero();
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  const auto nth = v.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
  std::nth_element(v.begin(), nth, v.end());
  return *nth;
}

class Run final : public Actor {
 public:
  Run(const FleetScenarioOptions& o, const RunSpec& spec)
      : o_(o),
        spec_(spec),
        gray_(*spec.gray),
        healthy_(Latency::LogNormal(o.latency, o.latency_sigma)),
        gap_(Duration(static_cast<Duration::rep>(1e9 / o.rate))),
        engine_(o.seed),
        timeouts_(engine_.NewLane()),
        replicas_(static_cast<std::size_t>(o.replicas)) {
    latencies_.reserve(static_cast<std::size_t>(o.requests));
    calls_.reserve(static_cast<std::size_t>(std::min(o.rate * Seconds(o.deadline) * 1.2 + 16, 1e6)));
  }

  Status Build() {
    std::vector<EndpointSpec> endpoints;
    for (int i = 0; i < o_.replicas; ++i) endpoints.push_back({.address = AddressOf(i)});
    const OutlierDetectionOptions off{.consecutive_failures = 0, .success_rate_stdev_factor = 0};
    const ReplicaSetOptions options{
        .picker = spec_.picker, .load = o_.load, .outlier = spec_.ejection ? o_.outlier : off, .listener = &ejections_};
    for (int g = 0; g < o_.client_groups; ++g) {
      Result<std::unique_ptr<ReplicaSet>> set = ReplicaSet::Create(options, endpoints);
      if (!set.ok()) return std::move(set).status();
      sets_.push_back(std::move(set).value());
    }
    return Status::Ok();
  }

  FleetRun Go() {
    if (spec_.progress) {
      const double expected = static_cast<double>(o_.requests) / o_.rate;
      engine_.OnProgress([this, expected](TimePoint) {
        spec_.progress(std::min(1.0, Seconds(engine_.elapsed()) / expected));
      });
    }
    engine_.At(engine_.start(), this, kArrive);
    engine_.Run();
    out_.picker = spec_.picker;
    out_.ejection = spec_.ejection;
    out_.hedge = spec_.hedge != nullptr;
    out_.ejections = ejections_.count;
    out_.gray_replicas = static_cast<int>(std::count(gray_.begin(), gray_.end(), true));
    out_.healthy_replicas = o_.replicas - out_.gray_replicas;
    out_.p50 = Quantile(latencies_, 0.5);
    out_.p99 = Quantile(latencies_, 0.99);
    out_.p999 = Quantile(latencies_, 0.999);
    out_.events = engine_.events_processed();
    return out_;
  }

  void OnEvent(const SimEvent& e) override {
    switch (e.kind) {
      case kArrive: return Arrive();
      case kAnswerOk: return Answer(e.a, e.b, true);
      case kAnswerFailed: return Answer(e.a, e.b, false);
      case kAttemptTimeout:
        if (Live(e.b)) EndLeg(JobSlot(e.b), JobLeg(e.b), OutcomeClass::kDeadlineExceeded);
        return;
      case kHedge:
        if (Round(e.a, e.b) && calls_[e.a].legs[0].in_flight && calls_[e.a].hedge.launched == 1) Hedge(e.a);
        return;
      default:
        if (Round(e.a, e.b)) StartRound(e.a);
        return;
    }
  }

 private:
  bool Round(std::uint32_t slot, std::uint64_t gen) const { return calls_[slot].gen == gen; }
  bool Live(std::uint64_t job) const {
    const Call& c = calls_[JobSlot(job)];
    return c.gen == JobGen(job) && c.legs[static_cast<std::size_t>(JobLeg(job))].in_flight;
  }

  std::uint32_t ReplicaOf(const PickedEndpoint& p) const {
    const std::string& a = p.address();
    std::uint32_t i = 0;
    std::from_chars(a.data() + 1, a.data() + a.size(), i);
    return i;
  }

  void Arrive() {
    const TimePoint now = engine_.now();
    std::uint32_t slot = 0;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(calls_.size());
      calls_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    Call& c = calls_[slot];
    const std::uint64_t client = engine_.rng().Below(static_cast<std::uint64_t>(o_.clients));
    c.group = static_cast<std::uint32_t>(client % static_cast<std::uint64_t>(o_.client_groups));
    c.attempt = 0;
    c.start = now;
    c.deadline = Deadline::After(now, o_.deadline);
    c.previous_wait = Duration::zero();
    c.tried = Tried{};
    ++out_.requests;
    StartRound(slot);
    if (out_.requests < o_.requests) engine_.After(engine_.rng().Exponential(gap_), this, kArrive);
  }

  void StartRound(std::uint32_t slot) {
    Call& c = calls_[slot];
    const TimePoint now = engine_.now();
    ++c.gen;
    ++c.attempt;
    c.hedge = HedgeState{.launched = 1, .last_launch = now};
    const std::uint32_t gen = c.gen;
    StartLeg(slot, 0);  // may end the attempt, and the round, at once
    if (spec_.hedge != nullptr && Round(slot, gen) && calls_[slot].legs[0].in_flight) Hedge(slot);
  }

  // Launches the round's hedge when the policy says it is due, or asks again when it will be.
  void Hedge(std::uint32_t slot) {
    Call& c = calls_[slot];
    const TimePoint now = engine_.now();
    const CallContext ctx{.deadline = c.deadline, .attempt = c.attempt, .idempotent = true};
    const HedgeDecision d = spec_.hedge->Decide(c.hedge, ctx, now);
    if (d.action == HedgeAction::kWait && d.wait != kInfiniteDuration) engine_.After(d.wait, this, kHedge, slot, c.gen);
    if (d.action != HedgeAction::kLaunch) return;
    c.hedge.launched = 2;
    c.hedge.last_launch = now;
    ++out_.hedges;
    StartLeg(slot, 1);
  }

  void StartLeg(std::uint32_t slot, int which) {
    Call& c = calls_[slot];
    Leg& leg = c.legs[static_cast<std::size_t>(which)];
    const TimePoint now = engine_.now();
    leg.picked = sets_[c.group]->Pick(now, c.tried, engine_.rng());
    leg.replica = ReplicaOf(leg.picked);
    leg.in_flight = true;
    leg.start = now;
    ++out_.attempts;
    if (gray_[leg.replica]) ++out_.gray_attempts;
    const Deadline ends = spec_.retry->AttemptDeadline(c.deadline, now);
    const std::uint64_t job = Job(c.gen, slot, which);
    engine_.AtInLane(timeouts_, ends.time(), this, kAttemptTimeout, slot, job);
    Send(leg.replica, job);  // may end the attempt at once: c is not used after
  }

  void Send(std::uint32_t replica, std::uint64_t job) {
    Replica& r = replicas_[replica];
    if (r.busy < o_.concurrency) return Serve(replica, job);
    if (r.waiting.size() < static_cast<std::size_t>(o_.queue)) return r.waiting.push_back(job);
    ++out_.rejected;
    EndLeg(JobSlot(job), JobLeg(job), OutcomeClass::kOverloaded);
  }

  void Serve(std::uint32_t replica, std::uint64_t job) {
    ++replicas_[replica].busy;
    Random& rng = engine_.rng();
    Duration took = healthy_.Sample(rng);
    bool ok = true;
    if (gray_[replica] && rng.UniformDouble() < o_.gray_share) {
      if (o_.gray_mode == GrayMode::kSlow) {
        took = o_.gray_latency;
      } else {
        ok = false;
      }
    }
    engine_.After(took, this, ok ? kAnswerOk : kAnswerFailed, replica, job);
  }

  void Answer(std::uint32_t replica, std::uint64_t job, bool ok) {
    Replica& r = replicas_[replica];
    --r.busy;
    if (Live(job)) EndLeg(JobSlot(job), JobLeg(job), ok ? OutcomeClass::kSuccess : OutcomeClass::kTransient);
    // The next waiting attempt whose caller still waits (the others are skipped).
    while (!r.waiting.empty()) {
      const std::uint64_t next = r.waiting.front();
      r.waiting.pop_front();
      if (Live(next)) return Serve(replica, next);
    }
  }

  void EndLeg(std::uint32_t slot, int which, OutcomeClass outcome) {
    Call& c = calls_[slot];
    Leg& leg = c.legs[static_cast<std::size_t>(which)];
    Leg& other = c.legs[static_cast<std::size_t>(1 - which)];
    const TimePoint now = engine_.now();
    leg.in_flight = false;
    sets_[c.group]->Report(leg.picked, outcome, now);
    if (spec_.hedge != nullptr && outcome == OutcomeClass::kSuccess) {
      spec_.hedge->latency()->Record(now - leg.start, now);
    }
    if (outcome == OutcomeClass::kSuccess) {
      if (other.in_flight) {  // the first answer wins: the other attempt is cancelled
        other.in_flight = false;
        sets_[c.group]->Report(other.picked, OutcomeClass::kCancelled, now);
        if (gray_[other.replica]) ++out_.gray_wasted;
      }
      return Finish(slot, true);
    }
    if (gray_[leg.replica]) ++out_.gray_wasted;
    if (other.in_flight) return;  // it may still answer
    const Status& status = outcome == OutcomeClass::kDeadlineExceeded ? timed_out_
                           : outcome == OutcomeClass::kOverloaded     ? refused_
                                                                      : failed_;
    const CallContext ctx{.deadline = c.deadline, .attempt = c.attempt};
    const RetryDecision d = spec_.retry->Decide(outcome, status, ctx, now, c.previous_wait, engine_.rng());
    if (!d.retry) return Finish(slot, false);
    c.previous_wait = d.wait;
    engine_.After(d.wait, this, kRetry, slot, c.gen);
  }

  void Finish(std::uint32_t slot, bool ok) {
    Call& c = calls_[slot];
    if (ok) ++out_.succeeded;
    latencies_.push_back(engine_.now() - c.start);
    ++c.gen;  // a pending timeout of the last attempt finds nothing
    free_.push_back(slot);
  }

  const FleetScenarioOptions& o_;
  const RunSpec& spec_;
  const std::vector<bool>& gray_;
  const Latency healthy_;
  const Duration gap_;  // mean time between arrivals
  const Status timed_out_ = Status::DeadlineExceeded("attempt timeout");
  const Status refused_ = Status::ResourceExhausted("queue full");
  const Status failed_ = Status::Unavailable("gray");
  Engine engine_;
  Engine::Lane timeouts_;
  EjectionCounter ejections_;
  std::vector<std::unique_ptr<ReplicaSet>> sets_;  // one per client group
  std::vector<Replica> replicas_;
  std::vector<Call> calls_;
  std::vector<std::uint32_t> free_;
  std::vector<Duration> latencies_;
  FleetRun out_;
};

}  // namespace

Result<FleetRun> RunFleet(const FleetScenarioOptions& o, const RunSpec& spec) {
  auto run = std::make_unique<Run>(o, spec);
  if (Status s = run->Build(); !s.ok()) return s;
  return run->Go();
}

}  // namespace stormguard::sim::fleet_internal
