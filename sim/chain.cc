// The service side of the chain model: arrivals, workers, queues, injected
// failures and answers. The callers' retry loops are in chain_hop.cc.
#include <algorithm>
#include <cmath>

#include "chain_sim.h"
#include "stormguard/core/validation.h"

namespace stormguard::sim {
namespace chain_internal {

ChainSim::ChainSim(const ChainSpec& spec)
    : spec_(spec), engine_(spec.seed), arrivals_rng_(spec.seed ^ 0x5eed0a771e5ULL) {
  for (const HopSpec& h : spec.hops) hops_.push_back(HopState{RetryPolicy::Create(h.retry).value(), {}, {}, false, {}});
  nodes_.resize(spec.services.size());
  r_.nodes.resize(spec.services.size());
  r_.hops.resize(spec.hops.size());
  r_.series = Series(spec.bucket, static_cast<int>(spec.services.size()), static_cast<int>(spec.hops.size()));
}

ChainResult ChainSim::Run() {
  if (spec_.load.burst > 0) engine_.At(engine_.start(), this, kBurst);
  if (spec_.load.rate > 0) ScheduleNextArrival();
  for (std::size_t n = 0; n < spec_.services.size(); ++n) {
    for (const CapacityDrop& d : spec_.services[n].capacity_drops) {
      engine_.At(engine_.start() + d.window.from, this, kPump, static_cast<std::uint32_t>(n));
      engine_.At(engine_.start() + d.window.to, this, kPump, static_cast<std::uint32_t>(n));
    }
  }
  InstallProgress();
  const TimePoint until = spec_.run_until == kInfiniteDuration ? kInfiniteFuture : engine_.start() + spec_.run_until;
  engine_.Run(until);
  r_.events = engine_.events_processed();
  r_.elapsed = engine_.elapsed();
  return std::move(r_);
}

void ChainSim::OnEvent(const SimEvent& e) {
  switch (e.kind) {
    case kArrival:
      NewClientRequest();
      ScheduleNextArrival();
      break;
    case kBurst:
      for (int i = 0; i < spec_.load.burst; ++i) NewClientRequest();
      break;
    case kWorkDone: OnWorkDone(e.a, GenOf(e.b), LowOf(e.b)); break;
    case kTimeout: OnTimeout(e.a, GenOf(e.b), LowOf(e.b)); break;
    case kTimeoutCheck: OnTimeoutCheck(static_cast<std::uint16_t>(e.a)); break;
    case kRetryWake: OnRetryWake(e.a, GenOf(e.b), LowOf(e.b)); break;
    case kPatience: OnPatience(e.a, GenOf(e.b)); break;
    case kPump: Pump(e.a); break;
    default: break;
  }
}

void ChainSim::InstallProgress() {
  if (!spec_.progress) return;
  const Duration expected = spec_.run_until != kInfiniteDuration ? spec_.run_until : spec_.load.duration;
  if (expected <= Duration::zero()) return;
  engine_.OnProgress([this, expected](TimePoint t) {
    spec_.progress(std::min(1.0, ToMillis(t - engine_.start()) / ToMillis(expected)));
  });
}

std::uint32_t ChainSim::Alloc() {
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

void ChainSim::Free(std::uint32_t idx) {
  ++calls_[idx].gen;
  free_.push_back(idx);
}

void ChainSim::ScheduleNextArrival() {
  const auto mean = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1.0 / spec_.load.rate));
  const TimePoint next = SaturatingAdd(now(), spec_.load.evenly_spaced ? mean : arrivals_rng_.Exponential(mean));
  if (next - engine_.start() < spec_.load.duration) engine_.At(next, this, kArrival);
}

void ChainSim::NewClientRequest() {
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

int ChainSim::Capacity(std::uint32_t node) const {
  const ServiceSpec& s = spec_.services[node];
  double factor = 1.0;
  for (const CapacityDrop& d : s.capacity_drops) {
    if (d.window.Contains(elapsed())) factor = std::min(factor, d.factor);
  }
  return static_cast<int>(std::lround(s.concurrency * factor));
}

void ChainSim::Admit(std::uint32_t idx) {
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

void ChainSim::Reject(std::uint32_t idx, Status status) {
  r_.series.Add(r_.series.rejections, elapsed());
  Respond(idx, std::move(status));
}

namespace {
bool InAny(const std::vector<Window>& ws, Duration t) {
  return std::any_of(ws.begin(), ws.end(), [t](const Window& w) { return w.Contains(t); });
}
}  // namespace

bool ChainSim::Draw(double p) { return p > 0 && (p >= 1 || engine_.rng().UniformDouble() < p); }

void ChainSim::Start(std::uint32_t idx) {
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
  NodeState& st = nodes_[c.node];
  if (!st.work) st.work = engine_.NewLane();
  engine_.AtInLane(*st.work, SaturatingAdd(now(), s.latency.Sample(engine_.rng())), this, kWorkDone, idx,
                   Pack(c.gen, out));
}

void ChainSim::OnWorkDone(std::uint32_t idx, std::uint32_t gen, std::uint32_t out) {
  if (calls_[idx].gen != gen) return;
  const std::uint16_t node = calls_[idx].node;
  NodeStats& ns = r_.nodes[node];
  if (out == kWorkHung) {  // the worker gives up on it; nobody is told
    ++ns.hung;
    ReleaseWorker(idx);
    Free(idx);
    Pump(node);
    return;
  }
  if (out == kWorkFailed) ++ns.failed;
  Finish(idx, out == kWorkOk ? Status::Ok() : Status::Unavailable("down"));
}

void ChainSim::ReleaseWorker(std::uint32_t idx) {
  Call& c = calls_[idx];
  if (!c.holds_worker) return;
  c.holds_worker = false;
  --nodes_[c.node].busy;
}

void ChainSim::Finish(std::uint32_t idx, Status status) {
  const std::uint16_t node = calls_[idx].node;
  const bool pump = calls_[idx].holds_worker;
  ReleaseWorker(idx);
  Respond(idx, std::move(status));
  if (pump) Pump(node);
}

void ChainSim::Pump(std::uint32_t node) {
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
void ChainSim::Respond(std::uint32_t idx, Status status) {
  const Call& c = calls_[idx];
  const std::uint32_t gen = c.gen, parent = c.parent, parent_gen = c.parent_gen;
  const bool waiting = c.waiting;
  const TimePoint arrived = c.arrived;
  Free(idx);
  if (parent == kNone) {
    if (!waiting) return;  // the client gave up already
    if (status.ok()) {
      ++r_.succeeded;
      r_.series.Add(r_.series.successes, elapsed());
      r_.series.Add(r_.series.good_by_arrival, arrived - engine_.start());
    } else {
      ++r_.failed;
      r_.series.Add(r_.series.failures, elapsed());
    }
    return;
  }
  Call& p = calls_[parent];
  if (p.gen == parent_gen && p.child == idx && p.child_gen == gen) {
    p.child = kNone;
    OnAttemptEnd(parent, status);
  }
}

void ChainSim::OnPatience(std::uint32_t idx, std::uint32_t gen) {
  Call& c = calls_[idx];
  if (c.gen != gen || !c.waiting) return;
  c.waiting = false;
  ++r_.abandoned;
  r_.series.Add(r_.series.failures, elapsed());
  if (c.hung) Free(idx);
}

}  // namespace chain_internal

Result<ChainResult> RunChain(const ChainSpec& spec) {
  Status s = ValidationStatus("chain spec", spec.Validate());
  if (!s.ok()) return s;
  chain_internal::ChainSim sim(spec);
  return sim.Run();
}

}  // namespace stormguard::sim
