#include "stormguard/sim/chain.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>

#include "stormguard/core/validation.h"
#include "stormguard/retry/retry_driver.h"
#include "stormguard/sim/engine.h"

namespace stormguard::sim {
namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

enum EventKind : std::uint32_t { kArrival, kBurst, kWorkDone, kTimeout, kRetryWake, kPatience, kPump };
enum WorkOutcome : std::uint32_t { kWorkOk, kWorkFailed, kWorkHung };

std::uint64_t Pack(std::uint32_t gen, std::uint32_t n) noexcept {
  return (static_cast<std::uint64_t>(gen) << 32) | n;
}
std::uint32_t GenOf(std::uint64_t b) noexcept { return static_cast<std::uint32_t>(b >> 32); }
std::uint32_t LowOf(std::uint64_t b) noexcept { return static_cast<std::uint32_t>(b); }

// One request being served by one node, and (above the leaf) the retry
// loop of its own downstream call.
struct Call {
  std::uint32_t gen = 0;  // bumped on free: stale events and answers are dropped
  std::uint16_t node = 0;
  bool flagged = false;       // serving a retry (or part of one): seed 003 retry_flag
  bool waiting = false;       // client requests only: the client still waits
  bool holds_worker = false;
  bool downstream_gave_up = false;
  bool breaker_permit = false;  // the attempt in flight holds a breaker permission
  bool hung = false;            // will never answer
  std::uint32_t parent = kNone, parent_gen = 0;
  std::uint32_t child = kNone, child_gen = 0;  // the attempt in flight
  std::uint32_t attempt = 0;
  Deadline deadline;       // as received
  Deadline call_deadline;  // for this node's own downstream call
  TimePoint arrived;
  TimePoint sent;  // when the attempt in flight went out
  Duration previous_wait = Duration::zero();
};

struct NodeState {
  Engine::Lane work;  // a fixed latency keeps completions in order
  int busy = 0;
  std::deque<std::pair<std::uint32_t, std::uint32_t>> queue;  // (call, gen)
};

struct HopState {
  RetryPolicy policy;
  CallContext scratch;  // reused for every Decide(): no allocation per attempt
  Engine::Lane timeouts = 0;  // a fixed per-attempt timeout keeps them in order
};

class ChainSim final : public Actor {
 public:
  explicit ChainSim(const ChainSpec& spec)
      : spec_(spec), engine_(spec.seed), arrivals_rng_(spec.seed ^ 0x5eed0a771e5ULL) {
    for (const HopSpec& h : spec.hops) {
      hops_.push_back(HopState{RetryPolicy::Create(h.retry).value(), {}, engine_.NewLane()});
    }
    for (std::size_t n = 0; n < spec.services.size(); ++n) nodes_.push_back(NodeState{engine_.NewLane()});
    r_.nodes.resize(spec.services.size());
    r_.hops.resize(spec.hops.size());
    r_.series = Series(spec.bucket, static_cast<int>(spec.services.size()), static_cast<int>(spec.hops.size()));
  }

  ChainResult Run() {
    if (spec_.load.burst > 0) engine_.At(engine_.start(), this, kBurst);
    if (spec_.load.rate > 0) ScheduleNextArrival();
    for (std::size_t n = 0; n < spec_.services.size(); ++n) {
      for (const CapacityDrop& d : spec_.services[n].capacity_drops) {
        engine_.At(engine_.start() + d.window.from, this, kPump, static_cast<std::uint32_t>(n));
        engine_.At(engine_.start() + d.window.to, this, kPump, static_cast<std::uint32_t>(n));
      }
    }
    InstallProgress();
    const TimePoint until = spec_.run_until == kInfiniteDuration ? kInfiniteFuture
                                                                 : engine_.start() + spec_.run_until;
    engine_.Run(until);
    r_.events = engine_.events_processed();
    r_.elapsed = engine_.elapsed();
    return std::move(r_);
  }

  void OnEvent(const SimEvent& e) override {
    switch (e.kind) {
      case kArrival: NewClientRequest(); ScheduleNextArrival(); break;
      case kBurst: for (int i = 0; i < spec_.load.burst; ++i) NewClientRequest(); break;
      case kWorkDone: OnWorkDone(e.a, GenOf(e.b), LowOf(e.b)); break;
      case kTimeout: OnTimeout(e.a, GenOf(e.b), LowOf(e.b)); break;
      case kRetryWake: OnRetryWake(e.a, GenOf(e.b), LowOf(e.b)); break;
      case kPatience: OnPatience(e.a, GenOf(e.b)); break;
      case kPump: Pump(e.a); break;
      default: break;
    }
  }

 private:
  TimePoint now() const noexcept { return engine_.now(); }
  Duration elapsed() const noexcept { return engine_.elapsed(); }

  void InstallProgress() {
    if (!spec_.progress) return;
    Duration expected = spec_.run_until != kInfiniteDuration ? spec_.run_until : spec_.load.duration;
    if (expected <= Duration::zero()) return;
    engine_.OnProgress([this, expected](TimePoint t) {
      spec_.progress(std::min(1.0, ToMillis(t - engine_.start()) / ToMillis(expected)));
    });
  }

  std::uint32_t Alloc() {
    std::uint32_t idx = 0;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
      const std::uint32_t gen = calls_[idx].gen;
      calls_[idx] = Call{};
      calls_[idx].gen = gen;
    } else {
      idx = static_cast<std::uint32_t>(calls_.size());
      calls_.emplace_back();
    }
    calls_[idx].arrived = now();
    return idx;
  }

  void Free(std::uint32_t idx) {
    ++calls_[idx].gen;
    free_.push_back(idx);
  }

  void ScheduleNextArrival() {
    const Duration mean = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1.0 / spec_.load.rate));
    const TimePoint next = SaturatingAdd(now(), arrivals_rng_.Exponential(mean));
    if (next - engine_.start() < spec_.load.duration) engine_.At(next, this, kArrival);
  }

  void NewClientRequest() {
    const std::uint32_t idx = Alloc();
    Call& c = calls_[idx];
    c.waiting = true;
    if (spec_.load.deadline != kInfiniteDuration) c.deadline = Deadline::After(now(), spec_.load.deadline);
    ++r_.offered;
    if (spec_.load.patience != kInfiniteDuration) {
      engine_.After(spec_.load.patience, this, kPatience, idx, Pack(c.gen, 0));
    }
    Admit(idx);
  }

  int Capacity(std::uint32_t node) const {
    const ServiceSpec& s = spec_.services[node];
    double factor = 1.0;
    for (const CapacityDrop& d : s.capacity_drops) {
      if (d.window.Contains(elapsed())) factor = std::min(factor, d.factor);
    }
    return static_cast<int>(std::lround(s.concurrency * factor));
  }

  void Admit(std::uint32_t idx) {
    const std::uint16_t node = calls_[idx].node;
    const ServiceSpec& s = spec_.services[node];
    NodeStats& ns = r_.nodes[node];
    ++ns.arrivals;
    r_.series.Add(r_.series.arrivals[node], elapsed());
    if (s.refuse_expired && calls_[idx].deadline.Expired(now())) {
      ++ns.refused_expired;
      Reject(idx, Status::DeadlineExceeded("expired"));
      return;
    }
    NodeState& st = nodes_[node];
    if (s.concurrency == 0 || (st.queue.empty() && st.busy < Capacity(node))) {
      Start(idx);
    } else if (st.queue.size() < static_cast<std::size_t>(s.queue_limit)) {
      st.queue.emplace_back(idx, calls_[idx].gen);
      ns.peak_queue = std::max(ns.peak_queue, static_cast<std::int64_t>(st.queue.size()));
    } else {
      ++ns.refused_full;
      Reject(idx, Status::ResourceExhausted("queue full"));
    }
  }

  void Reject(std::uint32_t idx, Status status) {
    r_.series.Add(r_.series.rejections, elapsed());
    Respond(idx, std::move(status));
  }

  static bool InAny(const std::vector<Window>& ws, Duration t) {
    return std::any_of(ws.begin(), ws.end(), [t](const Window& w) { return w.Contains(t); });
  }

  bool Draw(double p) { return p > 0 && (p >= 1 || engine_.rng().UniformDouble() < p); }

  void Start(std::uint32_t idx) {
    Call& c = calls_[idx];
    const ServiceSpec& s = spec_.services[c.node];
    if (s.concurrency > 0) {
      c.holds_worker = true;
      ++nodes_[c.node].busy;
    }
    const bool hang = InAny(s.hangs, elapsed()) || Draw(s.hang_rate);
    const bool fail = !hang && (InAny(s.outages, elapsed()) || Draw(s.error_rate));
    const bool leaf = c.node + 1u == spec_.services.size();
    if (!leaf && !hang && !fail) {
      StartLoop(idx);
      return;
    }
    if (hang && !c.holds_worker) {  // unanswered, and nothing to give back
      ++r_.nodes[c.node].hung;
      // A caller finds out through its own timeout. A client request stays
      // allocated until the client's patience runs out (its event needs it).
      c.hung = true;
      if (c.parent != kNone || spec_.load.patience == kInfiniteDuration) Free(idx);
      return;
    }
    const WorkOutcome out = hang ? kWorkHung : fail ? kWorkFailed : kWorkOk;
    engine_.AtInLane(nodes_[c.node].work, SaturatingAdd(now(), s.latency.Sample(engine_.rng())), this,
                     kWorkDone, idx, Pack(c.gen, out));
  }

  void OnWorkDone(std::uint32_t idx, std::uint32_t gen, std::uint32_t out) {
    if (calls_[idx].gen != gen) return;
    NodeStats& ns = r_.nodes[calls_[idx].node];
    if (out == kWorkHung) {
      ++ns.hung;
      const std::uint16_t node = calls_[idx].node;
      ReleaseWorker(idx);
      Free(idx);
      Pump(node);
      return;
    }
    if (out == kWorkFailed) ++ns.failed;
    Finish(idx, out == kWorkOk ? Status::Ok() : Status::Unavailable("down"));
  }

  void ReleaseWorker(std::uint32_t idx) {
    Call& c = calls_[idx];
    if (!c.holds_worker) return;
    c.holds_worker = false;
    --nodes_[c.node].busy;
  }

  void Finish(std::uint32_t idx, Status status) {
    const std::uint16_t node = calls_[idx].node;
    const bool pump = calls_[idx].holds_worker;
    ReleaseWorker(idx);
    Respond(idx, std::move(status));
    if (pump) Pump(node);
  }

  void Pump(std::uint32_t node) {
    NodeState& st = nodes_[node];
    const ServiceSpec& s = spec_.services[node];
    while (!st.queue.empty() && st.busy < Capacity(node)) {
      const auto [idx, gen] = st.queue.front();
      st.queue.pop_front();
      if (calls_[idx].gen != gen) continue;
      if (s.refuse_expired && calls_[idx].deadline.Expired(now())) {
        ++r_.nodes[node].refused_expired;
        Reject(idx, Status::DeadlineExceeded("expired"));
        continue;
      }
      Start(idx);
    }
  }

  // Sends the answer to whoever still waits for it, and frees the call.
  void Respond(std::uint32_t idx, Status status) {
    const Call c = calls_[idx];
    Free(idx);
    if (c.parent == kNone) {
      if (!c.waiting) return;  // the client gave up already
      if (status.ok()) {
        ++r_.succeeded;
        r_.series.Add(r_.series.successes, elapsed());
        r_.series.Add(r_.series.good_by_arrival, c.arrived - engine_.start());
      } else {
        ++r_.failed;
        r_.series.Add(r_.series.failures, elapsed());
      }
      return;
    }
    const Call& p = calls_[c.parent];
    if (p.gen == c.parent_gen && p.child == idx && p.child_gen == c.gen) {
      calls_[c.parent].child = kNone;
      OnAttemptEnd(c.parent, status);
    }
  }

  void OnPatience(std::uint32_t idx, std::uint32_t gen) {
    Call& c = calls_[idx];
    if (c.gen != gen || !c.waiting) return;
    c.waiting = false;
    ++r_.abandoned;
    r_.series.Add(r_.series.failures, elapsed());
    if (c.hung) Free(idx);
  }

  // ---- the retry loop of node `idx`'s downstream call (the driver's protocol) ----

  void StartLoop(std::uint32_t idx) {
    Call& c = calls_[idx];
    HopState& h = hops_[c.node];
    c.attempt = 1;
    c.call_deadline = c.deadline.ForNextHop(now(), spec_.hops[c.node].reserve);
    ++r_.hops[c.node].calls;
    if (RetryBudget* b = h.policy.budget()) b->OnRequestStart(now());
    SendAttempt(idx);
  }

  void SendAttempt(std::uint32_t idx) {
    const std::uint16_t hop = calls_[idx].node;
    const HopSpec& hs = spec_.hops[hop];
    if (hs.breaker != nullptr) {
      Status refused = hs.breaker->Acquire(now());
      if (!refused.ok()) {
        ++r_.hops[hop].breaker_refused;
        r_.series.Add(r_.series.rejections, elapsed());
        OnAttemptEnd(idx, refused);
        return;
      }
      calls_[idx].breaker_permit = true;
    }
    const Deadline attempt_deadline = hops_[hop].policy.AttemptDeadline(calls_[idx].call_deadline, now());
    const std::uint32_t child = Alloc();  // calls_ is a deque: references stay valid
    Call& c = calls_[idx];
    Call& k = calls_[child];
    k.node = static_cast<std::uint16_t>(hop + 1);
    k.parent = idx;
    k.parent_gen = c.gen;
    k.flagged = c.attempt > 1 || (hs.forward_retry_flag && c.flagged);
    if (hs.propagate_deadline) k.deadline = attempt_deadline;
    c.child = child;
    c.child_gen = k.gen;
    c.sent = now();
    HopStats& st = r_.hops[hop];
    ++st.attempts;
    if (c.attempt > 1) {
      ++st.retries;
      st.last_retry = elapsed();
      r_.series.Add(r_.series.retries[hop], elapsed());
    }
    if (!attempt_deadline.is_infinite()) {
      engine_.AtInLane(hops_[hop].timeouts, attempt_deadline.time(), this, kTimeout, idx,
                       Pack(c.gen, c.attempt));
    }
    Admit(child);
  }

  void OnTimeout(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt) {
    Call& c = calls_[idx];
    if (c.gen != gen || c.attempt != attempt || c.child == kNone) return;
    c.child = kNone;  // its answer, if any ever comes, is dropped
    ++r_.hops[c.node].timeouts;
    OnAttemptEnd(idx, Status::DeadlineExceeded("timeout"));
  }

  void OnRetryWake(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt) {
    Call& c = calls_[idx];
    if (c.gen != gen || c.attempt != attempt) return;
    ++c.attempt;
    SendAttempt(idx);
  }

  void OnAttemptEnd(std::uint32_t idx, const Status& status) {
    Call& c = calls_[idx];
    HopState& h = hops_[c.node];
    RetryBudget* budget = h.policy.budget();
    const OutcomeClass outcome = h.policy.Classify(status);
    if (c.breaker_permit) {
      c.breaker_permit = false;
      spec_.hops[c.node].breaker->OnResult(outcome, now() - c.sent, now());
    }
    if (outcome == OutcomeClass::kSuccess) {
      if (budget != nullptr) {
        budget->RecordSuccess(now());
        if (c.attempt > 1) budget->OnRetryEnd(now());
        budget->OnRequestEnd(now());
      }
      Finish(idx, Status::Ok());
      return;
    }
    retry_internal::RecordAttempt(h.policy, outcome, now());
    if (outcome == OutcomeClass::kDoNotRetry) c.downstream_gave_up = true;
    if (c.attempt > 1 && budget != nullptr) budget->OnRetryEnd(now());
    h.scratch.deadline = c.call_deadline;
    h.scratch.attempt = static_cast<int>(c.attempt);
    h.scratch.incoming_is_retry = c.flagged;
    h.scratch.downstream_gave_up = c.downstream_gave_up;
    const RetryDecision d = h.policy.Decide(outcome, status, h.scratch, now(), c.previous_wait, engine_.rng());
    if (d.retry) {
      c.previous_wait = d.wait;
      engine_.After(d.wait, this, kRetryWake, idx, Pack(c.gen, c.attempt));
      return;
    }
    if (d.reason == StopReason::kBudgetExhausted) NoteBudgetRefusal(c.node);
    if (budget != nullptr) budget->OnRequestEnd(now());
    // The answer going up: the failure's code, plus the marker when this
    // node announces that it gave up. Nothing else crosses the wire.
    Status out(status.code(), status.message());
    if (spec_.hops[c.node].mark_gave_up && retry_internal::GivesUpForTheChain(h.policy, d.reason)) {
      out.mutable_hints().do_not_retry = true;
      ++r_.hops[c.node].marked_gave_up;
    }
    Finish(idx, std::move(out));
  }

  void NoteBudgetRefusal(std::uint16_t hop) {
    HopStats& st = r_.hops[hop];
    if (st.budget_refused++ == 0) {
      st.first_budget_refusal = elapsed();
      st.offered_before_refusal = r_.offered;
      st.retries_before_refusal = st.retries;
    }
    r_.series.Add(r_.series.rejections, elapsed());
  }

  const ChainSpec& spec_;
  Engine engine_;
  // Arrivals draw from their own stream, so runs that differ only in their
  // policies see exactly the same clients.
  Random arrivals_rng_;
  std::deque<Call> calls_;
  std::vector<std::uint32_t> free_;
  std::vector<NodeState> nodes_;
  std::vector<HopState> hops_;
  ChainResult r_;
};

}  // namespace

Result<ChainResult> RunChain(const ChainSpec& spec) {
  Status s = ValidationStatus("chain spec", spec.Validate());
  if (!s.ok()) return s;
  ChainSim sim(spec);
  return sim.Run();
}

}  // namespace stormguard::sim
