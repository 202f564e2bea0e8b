#include "stormguard/hedge/hedge_session.h"

#include <algorithm>

#include "stormguard/core/internal/call_helpers.h"

namespace stormguard {

void HedgeSession::Report(EventKind kind, std::string_view reason, TimePoint at, int attempt, OutcomeClass outcome,
                          Duration d) const noexcept {
  Emit(policy_->options().listener, Event{.kind = kind,
                                          .policy = PolicyId::kHedge,
                                          .reason = reason,
                                          .at = at,
                                          .attempt = attempt,
                                          .outcome = outcome,
                                          .duration = d});
}

// A hedge holds a granted retry from its launch until it ends or is dropped.
void HedgeSession::EndRetry(int i, TimePoint coarse_now) const noexcept {
  if (RetryBudget* b = policy_->budget(); b != nullptr && i > 0) b->OnRetryEnd(coarse_now);
}

bool HedgeSession::Begin(TimePoint now, TimePoint coarse_now, HedgeActions& out) noexcept {
  out = HedgeActions{};
  if (RetryBudget* b = policy_->budget()) b->OnRequestStart(coarse_now);
  const HedgeStop why = policy_->CheckCall(*caller_, now);
  if (why != HedgeStop::kNone) {  // a plain single attempt: its result is the answer
    stop_ = why;
    winner_ = 0;
    done_ = true;
    return false;
  }
  start_[0] = now;
  running_[0] = true;
  in_flight_ = 1;
  out.launch_end = 1;
  state_.last_launch = now;
  Pump(now, out);
  return true;
}

void HedgeSession::OnInlineEnd(const Status& status, TimePoint start, TimePoint end, TimePoint coarse_now) noexcept {
  const OutcomeClass outcome = policy_->Classify(status);
  policy_->RecordOutcome(outcome, coarse_now);
  if (outcome == OutcomeClass::kSuccess && policy_->latency() != nullptr) {
    policy_->latency()->Record(end - start, coarse_now);
  }
  Report(EventKind::kAttemptEnded, {}, end, base_attempt_, outcome, end - start);
}

void HedgeSession::Pump(TimePoint now, HedgeActions& out) noexcept {
  while (!done_ && !launching_done_) {
    const HedgeDecision d = policy_->Decide(state_, *caller_, now);
    if (d.reason != HedgeStop::kNone) stop_ = d.reason;
    if (d.action == HedgeAction::kStop) {
      StopLaunching(out);
      break;
    }
    if (d.action == HedgeAction::kWait) {
      if (d.wait != kInfiniteDuration) ArmTimer(SaturatingAdd(now, d.wait), out);
      break;
    }
    Launch(now, out);
  }
  CheckDone(out);
}

void HedgeSession::Launch(TimePoint now, HedgeActions& out) noexcept {
  const int i = state_.launched;
  if (out.launch_first == out.launch_end) out.launch_first = static_cast<std::uint8_t>(i);
  out.launch_end = static_cast<std::uint8_t>(i + 1);
  const Duration since = now - state_.last_launch;
  start_[i] = now;
  running_[i] = true;
  ++in_flight_;
  state_.launched = i + 1;
  state_.last_launch = now;
  state_.failed_since_last_launch = false;
  state_.not_before = kInfinitePast;
  Report(EventKind::kHedgeLaunched, {}, now, base_attempt_ + i, OutcomeClass::kSuccess, since);
}

void HedgeSession::ArmTimer(TimePoint due, HedgeActions& out) noexcept {
  if (timer_armed_ && timer_at_ <= due) return;  // it fires first and plans again
  out.arm_timer = true;
  out.timer_at = due;
  timer_armed_ = true;
  timer_at_ = due;
}

void HedgeSession::StopLaunching(HedgeActions& out) noexcept {
  launching_done_ = true;
  if (out.arm_timer) {  // armed in this very step: the driver has not scheduled it
    out.arm_timer = false;
  } else if (!timer_armed_) {
    return;
  }
  out.cancel_timer = true;
  timer_armed_ = false;
}

void HedgeSession::CheckDone(HedgeActions& out) noexcept {
  if (done_ || !launching_done_ || in_flight_ > 0) return;
  done_ = true;  // every attempt failed non-fatally and no more may launch
  out.answered = true;
}

void HedgeSession::OnTimer(TimePoint now, bool current, HedgeActions& out) noexcept {
  out = HedgeActions{};
  if (current) timer_armed_ = false;
  Pump(now, out);
}

HedgeVerdict HedgeSession::OnAttemptEnd(int i, const Status& status, TimePoint end, TimePoint coarse_now,
                                        HedgeActions& out) noexcept {
  out = HedgeActions{};
  const OutcomeClass outcome = policy_->Classify(status);
  running_[i] = false;
  --in_flight_;
  policy_->RecordOutcome(outcome, coarse_now);
  EndRetry(i, coarse_now);
  Report(EventKind::kAttemptEnded, {}, end, base_attempt_ + i, outcome, end - start_[i]);
  if (done_) return HedgeVerdict::kLoser;
  if (outcome == OutcomeClass::kSuccess && policy_->latency() != nullptr) {
    policy_->latency()->Record(end - start_[i], coarse_now);
  }
  if (outcome == OutcomeClass::kSuccess || !policy_->IsNonFatal(outcome)) {
    Win(i, outcome, end, coarse_now, out);
    return outcome == OutcomeClass::kSuccess ? HedgeVerdict::kSucceeded : HedgeVerdict::kFatal;
  }
  Failed(i, status, end, out);
  return HedgeVerdict::kFailed;
}

void HedgeSession::Win(int i, OutcomeClass outcome, TimePoint end, TimePoint coarse_now, HedgeActions& out) noexcept {
  done_ = true;
  winner_ = i;
  out.answered = true;
  if (outcome != OutcomeClass::kSuccess) stop_ = HedgeStop::kFatal;
  if (i > 0) Report(EventKind::kHedgeWon, {}, end, base_attempt_ + i, outcome, end - start_[0]);
  for (int j = 0; j < state_.launched; ++j) {
    if (!running_[j]) continue;
    // Launched before the winner and still running: slower than it. Its
    // elapsed time is a lower bound of its latency, worth recording (it
    // keeps the percentile from drifting down as hedges win).
    if (j < i && policy_->latency() != nullptr) policy_->latency()->Record(end - start_[j], coarse_now);
    out.cancel |= static_cast<std::uint8_t>(1U << j);
    ++cancelled_;
  }
  StopLaunching(out);
}

// Non-fatal: the next hedge goes at once, or after the server's pushback.
void HedgeSession::Failed(int i, const Status& status, TimePoint end, HedgeActions& out) noexcept {
  last_failure_ = i;
  state_.failed_since_last_launch = true;
  const RetryHints& hints = status.hints();
  if (hints.pushback_stop) state_.pushback_stop = true;
  if (hints.pushback) {
    state_.not_before =
        SaturatingAdd(end, std::clamp(*hints.pushback, Duration::zero(), policy_->options().max_pushback));
  }
  Pump(end, out);
}

void HedgeSession::OnLaunchRefused(int i, TimePoint coarse_now, HedgeActions& out) noexcept {
  out = HedgeActions{};
  for (int j = i; j < state_.launched; ++j) {  // charged, never ran
    running_[j] = false;
    --in_flight_;
    EndRetry(j, coarse_now);
  }
  state_.launched = i;
  stop_ = HedgeStop::kExecutorBusy;
  StopLaunching(out);
  CheckDone(out);
}

void HedgeSession::OnAttemptSkipped(int i, TimePoint coarse_now) noexcept {
  running_[i] = false;
  --in_flight_;
  EndRetry(i, coarse_now);
}

void HedgeSession::OnCallerCancelled(HedgeActions& out) noexcept {
  out = HedgeActions{};
  if (!launching_done_) {
    stop_ = HedgeStop::kCancelled;
    StopLaunching(out);
  }
  CheckDone(out);
}

void HedgeSession::Finish(Status& answer, bool answer_downstream_gave_up, TimePoint now,
                          TimePoint coarse_now) noexcept {
  if (RetryBudget* b = policy_->budget()) b->OnRequestEnd(coarse_now);
  if (answer_downstream_gave_up) caller_->downstream_gave_up = true;
  if (answer.ok()) return;
  if (winner_ < 0 && HedgePolicy::GivesUpForTheChain(stop_)) core_internal::MarkGaveUp(answer, *caller_);
  Report(EventKind::kGaveUp, HedgeStopName(stop_), now, base_attempt_, policy_->Classify(answer), Duration::zero());
}

void HedgeSession::OnStrayAttemptEnd(int attempt, bool hedge, const Status& status, Duration latency, TimePoint end,
                                     TimePoint coarse_now) const noexcept {
  const OutcomeClass outcome = policy_->Classify(status);
  policy_->RecordOutcome(outcome, coarse_now);
  if (RetryBudget* b = policy_->budget(); b != nullptr && hedge) b->OnRetryEnd(coarse_now);
  Report(EventKind::kAttemptEnded, {}, end, attempt, outcome, latency);
}

}  // namespace stormguard
