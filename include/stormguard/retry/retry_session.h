// stormguard/retry/retry_session.h: one call's retries, told to its budget
// and listener in the right order, with no waiting and no I/O.
//
// A RetryPolicy only decides. Around its decisions a driver must also keep
// the retry budget's books (OnRequestStart once; every finished attempt
// recorded as a success or a failure; OnRetryEnd when a granted retry ends;
// OnRequestEnd once), report attempts, retries and give-ups to the
// listener, and mark a final failure "do not retry" when this layer gave up
// (x-no-retry, docs/chain-protocol.md). A RetrySession does all of that for one
// logical call, so a driver (the blocking ExecuteWithRetry, the simulator's
// event loop, an asynchronous driver) only runs attempts and waits:
//
//   RetrySession session(policy, ctx, clock.CoarseNow());
//   for (;;) {
//     Status s = Attempt(ctx);
//     RetryDecision d = session.OnAttemptEnd(s, policy.Classify(s), ctx, clock.Now(),
//                                            clock.CoarseNow(), latency, rng);
//     if (!d.retry) return s;       // books closed; s marked when this layer gave up
//     if (!Sleep(d.wait, ctx.stop)) return session.OnWaitCancelled(ctx, clock.CoarseNow());
//     ++ctx.attempt;
//   }
//
// A success may end with OnSuccess instead (no decision to make), or with
// OnQuietSuccess when quiet() (the policy has no listener): no events, so no
// precise clock read. The coarse times go to the budget only: without one,
// any value will do.
//
// Thread safety: a session belongs to one call and one thread at a time;
// the policy and budget it uses are shared and thread-safe.
#pragma once

#include "stormguard/core/call_context.h"
#include "stormguard/core/events.h"
#include "stormguard/core/random.h"
#include "stormguard/core/status.h"
#include "stormguard/core/success_tally.h"
#include "stormguard/retry/retry_policy.h"

namespace stormguard {

class RetrySession {
 public:
  RetrySession() noexcept = default;  // empty: for pooled storage; assign a real one before use
  // Starts the call whose first attempt is ctx.attempt (OnRequestStart).
  RetrySession(const RetryPolicy& policy, const CallContext& ctx, TimePoint coarse_now) noexcept
      : policy_(&policy), first_attempt_(ctx.attempt) {
    if (RetryBudget* b = policy.budget()) b->OnRequestStart(coarse_now);
  }

  const RetryPolicy& policy() const noexcept { return *policy_; }
  // No listener: a success may end with OnQuietSuccess.
  bool quiet() const noexcept { return policy_->options().listener == nullptr; }
  // The wait granted before the current attempt (zero before the first retry).
  Duration previous_wait() const noexcept { return previous_wait_; }

  // The attempt succeeded and nobody listens: closes the books; ctx.attempt
  // goes back to the call's first.
  void OnQuietSuccess(CallContext& ctx, TimePoint coarse_now) noexcept {
    if (RetryBudget* b = policy_->budget()) {
      b->RecordSuccess(coarse_now);
      if (ctx.attempt > first_attempt_) b->OnRetryEnd(coarse_now);
      b->OnRequestEnd(coarse_now);
    }
    ctx.attempt = first_attempt_;
  }

  // The attempt succeeded at `now`, after `latency` (standing for `weight`
  // attempts: Event::weight): closes the books like OnQuietSuccess and
  // reports the attempt's end, or counts it in the listener's tally when it
  // went untimed.
  // Inline: with a listener, every call that succeeds first time ends here.
  void OnSuccess(CallContext& ctx, TimePoint now, TimePoint coarse_now, Duration latency,
                 std::uint32_t weight = 1) noexcept {
    const int attempt = ctx.attempt;
    OnQuietSuccess(ctx, coarse_now);
    if (SuccessTally* tally = policy_->success_tally(); tally != nullptr && weight == 0) {
      return tally->Add(attempt <= 1 ? SuccessTally::kRetryFirstAttempt : SuccessTally::kRetryLaterAttempt);
    }
    Emit(policy_->options().listener, Event{.kind = EventKind::kAttemptEnded,
                                            .policy = PolicyId::kRetry,
                                            .at = now,
                                            .attempt = attempt,
                                            .weight = weight,
                                            .duration = latency});
  }

  // Attempt ctx.attempt ended with `status` (classified as `outcome`) at
  // `now`, after `latency` (zero when not measured). Records it, reports it,
  // and asks the policy. A retry: kRetryScheduled is reported and the driver
  // waits d.wait, then increments ctx.attempt. A stop: the books are closed,
  // kGaveUp reported for a failure, `status` marked do_not_retry (and
  // ctx.downstream_gave_up set) when this layer gave up for the chain, and
  // ctx.attempt back to the call's first.
  RetryDecision OnAttemptEnd(Status& status, OutcomeClass outcome, CallContext& ctx, TimePoint now,
                             TimePoint coarse_now, Duration latency, Random& rng) noexcept;

  // The wait before a granted retry ended early (ctx.stop): that retry never
  // ran. Closes the books; returns the CANCELLED status to answer with.
  Status OnWaitCancelled(CallContext& ctx, TimePoint coarse_now) noexcept;

 private:
  const RetryPolicy* policy_ = nullptr;
  int first_attempt_ = 1;
  Duration previous_wait_ = Duration::zero();
};

// Whether a layer that stopped for `reason` should tell the layers above
// not to retry either: a downstream gave up, or this layer could retry and
// stopped because retrying would not help. A layer configured with one
// attempt passes failures through unmarked, so the one layer that does
// retry still can.
bool GivesUpForTheChain(const RetryPolicy& policy, StopReason reason) noexcept;

}  // namespace stormguard
