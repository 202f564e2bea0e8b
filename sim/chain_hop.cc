// The caller side of the chain model: each node's retry loop around its
// downstream call, a RetrySession per call (the same bookkeeping as
// ExecuteWithRetry) with the waits turned into events.
#include "chain_sim.h"

namespace stormguard::sim::chain_internal {

void ChainSim::StartLoop(std::uint32_t idx) {
  Call& c = calls_[idx];
  HopState& h = hops_[c.node];
  c.attempt = 1;
  c.call_deadline = c.deadline.ForNextHop(now(), spec_.hops[c.node].reserve);
  ++r_.hops[c.node].calls;
  c.session = RetrySession(h.policy, CallContext{}, now());
  SendAttempt(idx);
}

void ChainSim::SendAttempt(std::uint32_t idx) {
  const std::uint16_t hop = calls_[idx].node;
  const HopSpec& hs = spec_.hops[hop];
  if (hs.breaker != nullptr) {
    const Status refused = hs.breaker->Acquire(now());
    if (!refused.ok()) {
      ++r_.hops[hop].breaker_refused;
      r_.series.Add(r_.series.rejections, elapsed());
      OnAttemptEnd(idx, refused);
      return;
    }
    calls_[idx].breaker_permit = true;
  }
  const Deadline attempt_deadline = hops_[hop].policy.AttemptDeadline(calls_[idx].call_deadline, now());
  const std::uint32_t child = Alloc();  // may move calls_: take references after it
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
  if (!attempt_deadline.is_infinite()) SetTimeout(hop, {attempt_deadline.time(), idx, c.gen, c.attempt});
  Admit(child);
}

void ChainSim::SetTimeout(std::uint16_t hop, PendingTimeout t) {
  std::deque<PendingTimeout>& q = hops_[hop].timeouts;
  if (!q.empty() && t.at < q.back().at) {  // out of order (a tighter deadline): its own event
    engine_.At(t.at, this, kTimeout, t.call, Pack(t.gen, t.attempt));
    return;
  }
  q.push_back(t);
  ArmTimeouts(hop);
}

bool ChainSim::AttemptInFlight(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt) const {
  const Call& c = calls_[idx];
  return c.gen == gen && c.attempt == attempt && c.child != kNone;
}

void ChainSim::ArmTimeouts(std::uint16_t hop) {
  HopState& h = hops_[hop];
  if (h.armed) return;
  // An attempt that ended never comes back in flight: drop its timeout now.
  while (!h.timeouts.empty() &&
         !AttemptInFlight(h.timeouts.front().call, h.timeouts.front().gen, h.timeouts.front().attempt)) {
    h.timeouts.pop_front();
  }
  if (h.timeouts.empty()) return;
  h.armed = true;
  if (!h.checks) h.checks = engine_.NewLane();
  engine_.AtInLane(*h.checks, h.timeouts.front().at, this, kTimeoutCheck, hop);
}

void ChainSim::OnTimeoutCheck(std::uint16_t hop) {
  HopState& h = hops_[hop];
  h.armed = false;
  while (!h.timeouts.empty() && h.timeouts.front().at <= now()) {
    const PendingTimeout t = h.timeouts.front();
    h.timeouts.pop_front();
    OnTimeout(t.call, t.gen, t.attempt);
  }
  ArmTimeouts(hop);
}

void ChainSim::OnTimeout(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt) {
  if (!AttemptInFlight(idx, gen, attempt)) return;
  Call& c = calls_[idx];
  c.child = kNone;  // its answer, if any ever comes, is dropped
  ++r_.hops[c.node].timeouts;
  OnAttemptEnd(idx, Status::DeadlineExceeded("timeout"));
}

void ChainSim::OnRetryWake(std::uint32_t idx, std::uint32_t gen, std::uint32_t attempt) {
  Call& c = calls_[idx];
  if (c.gen != gen || c.attempt != attempt) return;
  ++c.attempt;
  SendAttempt(idx);
}

void ChainSim::OnAttemptEnd(std::uint32_t idx, const Status& status) {
  Call& c = calls_[idx];
  HopState& h = hops_[c.node];
  const OutcomeClass outcome = h.policy.Classify(status);
  if (c.breaker_permit) {
    c.breaker_permit = false;
    spec_.hops[c.node].breaker->OnResult(outcome, now() - c.sent, now());
  }
  h.scratch.deadline = c.call_deadline;
  h.scratch.attempt = static_cast<int>(c.attempt);
  h.scratch.incoming_is_retry = c.flagged;
  h.scratch.downstream_gave_up = c.downstream_gave_up;
  if (outcome == OutcomeClass::kSuccess) {
    c.session.OnQuietSuccess(h.scratch, now());
    Finish(idx, Status::Ok());
    return;
  }
  Status verdict = status;  // the session marks it; only the code and our own marker go up
  const RetryDecision d =
      c.session.OnAttemptEnd(verdict, outcome, h.scratch, now(), now(), Duration::zero(), engine_.rng());
  c.downstream_gave_up = h.scratch.downstream_gave_up;
  if (d.retry) {
    ++r_.hops[c.node].retries_granted;
    engine_.After(d.wait, this, kRetryWake, idx, Pack(c.gen, c.attempt));
    return;
  }
  if (d.reason == StopReason::kBudgetExhausted) NoteBudgetRefusal(c.node);
  // The answer going up: the failure's code, plus the marker when this node
  // announces that it gave up. Nothing else crosses the wire.
  Status out(status.code(), status.message());
  if (spec_.hops[c.node].mark_gave_up && GivesUpForTheChain(h.policy, d.reason)) {
    out.mutable_hints().do_not_retry = true;
    ++r_.hops[c.node].marked_gave_up;
  }
  Finish(idx, std::move(out));
}

void ChainSim::NoteBudgetRefusal(std::uint16_t hop) {
  HopStats& st = r_.hops[hop];
  if (st.budget_refused++ == 0) {
    st.first_budget_refusal = elapsed();
    st.offered_before_refusal = r_.offered;
    st.granted_before_refusal = st.retries_granted;
  }
  r_.series.Add(r_.series.rejections, elapsed());
}

}  // namespace stormguard::sim::chain_internal
