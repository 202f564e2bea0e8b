// stormguard/hedge/hedge_policy.h: when to send a backup copy of a slow call.
//
// Hedging: if the first request has no answer after a delay, send another one
// asynchronously; whichever answers first ends the call. HedgePolicy is the
// pure decision (like RetryPolicy): given what a call has launched so far and
// the time, it answers "launch an attempt now", "ask again after this wait",
// or "no more attempts, for this reason". It never sleeps; the blocking
// driver (hedge/hedge_driver.h), the hedge stage's asynchronous form and the
// simulator do the waiting.
//
//   auto policy = HedgePolicy::Create({.delay = 50ms, .max_hedged_attempts = 1,
//                                      .idempotent = true, .budget = budget});
//   HedgeDecision d = policy->Decide(state, ctx, clock.Now());
//
// The delay before each hedge (counted from the previous launch) is
//   - fixed: `delay`; zero sends every attempt at once (Polly's parallel
//     mode), kInfiniteDuration hedges only after a non-fatal failure (Polly's
//     fallback mode);
//   - or live: the `quantile` of `latency` (a LatencyTracker the driver
//     feeds), clamped to [min_delay, max_delay]; `delay` applies until the
//     tracker holds enough samples. The Tail at Scale hedges at ~p95
//     (quantile 0.95: a fraction in (0, 1], not a percent).
// A failed attempt whose class is in `non_fatal` makes the next hedge go at
// once (gRPC A6), after a server's pushback if it sent one; any other answer
// (success, or a fatal failure) ends the call.
//
// Order of checks in Decide(), first match wins:
//   1. the call can never hedge (CheckCall): cancelled; not idempotent and no
//      idempotency key; serving a retried request; deadline (nearly) gone
//   2. 1 + max_hedged_attempts launched             -> stop (kAttemptsExhausted)
//   3. a server said never retry                    -> stop (kPushbackStop)
//   4. no failure pending and the delay is infinite -> wait for a failure
//   5. the attempt would start too late to get min_attempt_time before the
//      deadline -> after a failure stop (kDeadline); else wait for a failure
//      (reason kDeadline: the timed hedge cannot fit, a failure may still
//      launch one at once)
//   6. not yet due                                  -> wait (due - now)
//   7. the budget refuses (only now is it charged)  -> stop (kBudgetExhausted)
//   otherwise launch. Hedges draw on the same RetryBudget as retries (gRPC
// A6: throttling applies to hedged RPCs), one TryAcquireRetry per hedge.
//
// Idempotency (decided here, not in Create): a policy with idempotent=false
// is valid but hedges only calls that carry an idempotency key (the callee
// deduplicates them: one logical operation) or say they are idempotent
// (CallContext::idempotent, a GET). Every other call runs as a
// plain single attempt. So one policy can serve GET and keyed POST alike,
// the rule RetryPolicy applies to ambiguous outcomes.
//
// Thread safety: a HedgePolicy is immutable and shared by all calls, except
// for a cache of the live delay (atomics, refreshed every delay_refresh);
// the budget and tracker it holds are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/classifier.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/hedge/internal/refreshed_quantile.h"
#include "stormguard/hedge/latency_tracker.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard {

// Why no (further) hedge was launched.
enum class HedgeStop : std::uint8_t {
  kNone,               // nothing held a hedge back
  kCancelled,          // the caller cancelled the call
  kNotIdempotent,      // not idempotent and no idempotency key
  kIncomingRetry,      // the request being served is itself a retry (the retry flag)
  kAttemptsExhausted,  // max_hedged_attempts already launched
  kPushbackStop,       // a server asked never to retry
  kDeadline,           // the attempt would not fit before the deadline
  kBudgetExhausted,    // the retry budget refused
  kExecutorBusy,       // the executor's queue was full (driver)
  kFatal,              // a fatal failure ended the call (driver)
};

// "none", "budget_exhausted", ... (stable, for events and metrics).
std::string_view HedgeStopName(HedgeStop r) noexcept;

enum class HedgeAction : std::uint8_t { kLaunch, kWait, kStop };

struct HedgeDecision {
  HedgeAction action = HedgeAction::kStop;
  Duration wait = Duration::zero();  // kWait: ask again after this (infinite: when an attempt fails)
  HedgeStop reason = HedgeStop::kNone;

  static HedgeDecision Launch() noexcept { return {HedgeAction::kLaunch, Duration::zero(), HedgeStop::kNone}; }
  static HedgeDecision Wait(Duration d, HedgeStop why = HedgeStop::kNone) noexcept {
    return {HedgeAction::kWait, d, why};
  }
  static HedgeDecision Stop(HedgeStop why) noexcept { return {HedgeAction::kStop, Duration::zero(), why}; }
};

// What a driver knows about one hedged call.
struct HedgeState {
  int launched = 1;                       // attempts launched, the primary included
  TimePoint last_launch{};                // when the latest one was launched
  bool failed_since_last_launch = false;  // a non-fatal failure: skip the delay
  TimePoint not_before = kInfinitePast;   // server pushback on that failure
  bool pushback_stop = false;             // a server asked never to retry
};

struct HedgeOptions {
  static constexpr int kMaxHedgedAttempts = 4;  // gRPC caps maxAttempts at 5 in all

  Duration delay = std::chrono::seconds(2);                 // Polly's default; see banner for 0 and infinite
  int max_hedged_attempts = 1;                              // backups after the primary: 1..4 (Polly default 1)
  std::shared_ptr<LatencyTracker> latency;                  // optional: the delay follows its quantile
  double quantile = 0.95;                                   // a fraction in (0, 1]: 0.95 is p95
  Duration min_delay = std::chrono::milliseconds(1);        // floor of a live delay
  Duration max_delay = std::chrono::seconds(10);            // ceiling of a live delay
  Duration delay_refresh = std::chrono::milliseconds(100);  // reuse a live delay this long
  // Failures that let other attempts still succeed (gRPC nonFatalStatusCodes
  // UNAVAILABLE/ABORTED are kTransient here). Must not contain success.
  OutcomeSet non_fatal{OutcomeClass::kTransient};
  bool idempotent = false;                           // see banner: keyed calls hedge either way
  bool hedge_when_serving_a_retry = false;           // the retry flag, as for retries
  Duration min_attempt_time = Duration::zero();      // least time an attempt needs
  Duration max_pushback = std::chrono::seconds(30);  // clamp on server pushback
  std::shared_ptr<RetryBudget> budget;               // optional, shared with the retry policy
  const Classifier* classifier = &DefaultClassifier();
  Listener* listener = nullptr;  // optional

  std::vector<std::string> Validate() const;
};

class HedgePolicy {
 public:
  static Result<HedgePolicy> Create(HedgeOptions options);

  const HedgeOptions& options() const noexcept { return o_; }
  RetryBudget* budget() const noexcept { return o_.budget.get(); }
  LatencyTracker* latency() const noexcept { return o_.latency.get(); }

  OutcomeClass Classify(const Status& s) const noexcept { return o_.classifier->Classify(s); }
  bool IsNonFatal(OutcomeClass c) const noexcept { return o_.non_fatal.contains(c); }

  // The delay before the next hedge at `now`: fixed, or the live quantile.
  Duration CurrentDelay(TimePoint now) const noexcept;

  // Why no hedge can ever launch for this call (check 1), or kNone. Drivers
  // run such a call as one plain attempt.
  HedgeStop CheckCall(const CallContext& ctx, TimePoint now) const noexcept;

  // See the banner for the order of checks. Charges the budget on kLaunch.
  HedgeDecision Decide(const HedgeState& state, const CallContext& ctx, TimePoint now) const noexcept;

  // For drivers: books a finished attempt with the budget (a failure says
  // the destination is unhealthy, any other answer that it is healthy, a
  // cancelled attempt says nothing).
  void RecordOutcome(OutcomeClass outcome, TimePoint now) const noexcept;
  // Whether a call that failed for this reason tells the layers above not to
  // retry the same failure either (x-no-retry), as the retry driver does.
  static bool GivesUpForTheChain(HedgeStop r) noexcept;

 private:
  HedgePolicy(HedgeOptions o, std::shared_ptr<hedge_internal::RefreshedQuantile> cache) noexcept
      : o_(std::move(o)), cache_(std::move(cache)) {}
  Duration LiveDelay(TimePoint now) const noexcept;

  HedgeOptions o_;
  std::shared_ptr<hedge_internal::RefreshedQuantile> cache_;  // only with a tracker; copies share it
};

}  // namespace stormguard
