// stormguard/retry/retry_policy.h: whether to retry, and after how long.
//
// RetryPolicy is a pure decision (gRPC's ShouldRetry model): given how an
// attempt ended, the call's context and the time, it answers "retry after
// this wait" or "stop, for this reason". It never sleeps; drivers
// (retry/retry_driver.h, the simulator) do the waiting.
//
//   auto policy = RetryPolicy::Create({.max_attempts = 3,
//       .backoff = {.base = 100ms, .jitter = Jitter::kFull},
//       .idempotent = true, .budget = budget});
//   RetryDecision d = policy->Decide(status, ctx, clock.Now(), prev_wait, rng);
//   if (d.retry) sleep(d.wait);
//
// Order of checks in Decide(), first match wins:
//   1. success                                   -> stop (kSucceeded)
//   2. cancelled: outcome or ctx.stop            -> stop (kCancelled)
//   3. downstream said do-not-retry              -> stop (kDownstreamGaveUp)
//   4. outcome class not in retry_on             -> stop (kNotRetryable)
//   5. ambiguous outcome, neither options nor ctx idempotent, no key
//                                                -> stop (kNotIdempotent)
//   6. the request we serve is itself a retry    -> stop (kIncomingRetry)
//   7. no attempts left                          -> stop (kAttemptsExhausted)
//   8. server pushback says never                -> stop (kPushbackStop)
//   9. wait = the longer of backoff and pushback (clamped); remaining deadline cannot hold
//      wait + min_attempt_time                   -> stop (kDeadline)
//  10. the budget refuses (only now is it charged) -> stop (kBudgetExhausted)
//  otherwise retry after `wait`.
// Checks that cost nothing come first; the budget comes last so a token is
// spent only on a retry that will really be sent.
//
// Thread safety: a RetryPolicy is immutable and shared by all calls; the
// budget it holds is thread-safe. Decide() touches only the Random it is given.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/backoff/backoff.h"
#include "stormguard/core/call_context.h"
#include "stormguard/core/classifier.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard {

enum class StopReason {
  kSucceeded,
  kCancelled,
  kDownstreamGaveUp,
  kNotRetryable,
  kNotIdempotent,
  kIncomingRetry,
  kAttemptsExhausted,
  kPushbackStop,
  kDeadline,
  kBudgetExhausted,
};

// "succeeded", "budget_exhausted", ... (stable, for events and metrics).
std::string_view StopReasonName(StopReason r) noexcept;

struct RetryDecision {
  bool retry = false;
  Duration wait = Duration::zero();            // valid when retry
  StopReason reason = StopReason::kSucceeded;  // valid when !retry

  static RetryDecision Retry(Duration wait) noexcept { return {true, wait, StopReason::kSucceeded}; }
  static RetryDecision Stop(StopReason r) noexcept { return {false, Duration::zero(), r}; }
};

// The most attempts one call may make. Real policies stay far below (gRPC
// clamps to 5, the presets use at most 8); the bound is on cost: one call
// makes at most this many Decide()s and waits, a chain of 64 such layers
// still multiplies to a finite double (1000^64 = 1e192), and it leaves room
// for a loop bounded by its deadline rather than its count (the simulator's
// `deadline` and `storm` demos go up to 1000).
inline constexpr int kMaxRetryAttempts = 1000;

struct RetryOptions {
  int max_attempts = 3;  // counting the first call; 1 disables retries; at most kMaxRetryAttempts
  BackoffOptions backoff{.kind = BackoffKind::kExponential,
                         .base = std::chrono::milliseconds(100),
                         .cap = std::chrono::seconds(10),
                         .jitter = Jitter::kFull};
  // Upper bound for one attempt; each attempt also ends at the call's
  // deadline. kInfiniteDuration: only the call's deadline applies.
  Duration per_attempt_timeout = kInfiniteDuration;
  // The least time an attempt needs to be worth sending (docs/deadlines.md).
  Duration min_attempt_time = Duration::zero();
  OutcomeSet retry_on = kDefaultRetryable;
  // The operation may run twice safely (GET/PUT/DELETE, or deduplicated by
  // an idempotency key). Ambiguous outcomes of other calls never retry. A
  // policy shared by several operations leaves it false and lets each call
  // say so (CallContext::idempotent).
  bool idempotent = false;
  // The retry flag: a service serving a retried request does not retry
  // its own downstream calls, so a storm grows linearly, not exponentially.
  bool retry_when_serving_a_retry = false;
  Duration max_pushback = std::chrono::seconds(30);  // clamp on server pushback
  std::shared_ptr<RetryBudget> budget;               // optional, per destination
  const Classifier* classifier = &DefaultClassifier();
  Listener* listener = nullptr;  // optional

  std::vector<std::string> Validate() const;
};

class RetryPolicy {
 public:
  static Result<RetryPolicy> Create(RetryOptions options);

  const RetryOptions& options() const noexcept { return o_; }
  const Backoff& backoff() const noexcept { return backoff_; }
  RetryBudget* budget() const noexcept { return o_.budget.get(); }
  // How the listener needs attempts timed, asked once here.
  AttemptTiming attempt_timing() const noexcept { return timing_; }
  // Where the listener counts untimed successes, asked once here; may be null.
  SuccessTally* success_tally() const noexcept { return tally_; }

  // The deadline of the attempt starting at `now`: the call's deadline,
  // tightened by the per-attempt timeout.
  Deadline AttemptDeadline(Deadline call, TimePoint now) const noexcept {
    return o_.per_attempt_timeout == kInfiniteDuration ? call : call.Within(now, o_.per_attempt_timeout);
  }

  OutcomeClass Classify(const Status& s) const noexcept { return o_.classifier->Classify(s); }

  // Attempt number ctx.attempt ended with `status` (already classified as
  // `outcome`) at `now`. `previous_wait` is the wait before this attempt
  // (zero after the first); decorrelated jitter grows from it.
  RetryDecision Decide(OutcomeClass outcome, const Status& status, const CallContext& ctx, TimePoint now,
                       Duration previous_wait, Random& rng) const noexcept;

 private:
  RetryPolicy(RetryOptions o, Backoff b) noexcept
      : o_(std::move(o)),
        backoff_(std::move(b)),
        timing_(o_.listener != nullptr ? o_.listener->attempt_timing() : AttemptTiming::kEvery),
        tally_(o_.listener != nullptr ? o_.listener->success_tally() : nullptr) {}
  RetryOptions o_;
  Backoff backoff_;
  AttemptTiming timing_;
  SuccessTally* tally_;
};

}  // namespace stormguard
