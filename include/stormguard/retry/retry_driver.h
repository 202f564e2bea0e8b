// stormguard/retry/retry_driver.h: the blocking driver that runs a call with retries.
//
// ExecuteWithRetry runs `fn(CallContext&)` until the RetryPolicy says stop,
// sleeping between attempts on the injected Clock. The callable returns a
// Status or a Result<T>; exceptions it throws are caught and classified
// (StatusFromException), so exception-style code works too.
//
//   CallContext ctx{.deadline = Deadline::After(clock.Now(), 250ms)};
//   Status s = ExecuteWithRetry(*policy, ctx, [&](CallContext& attempt) {
//     return client.Call(attempt.deadline, attempt.stop);  // attempt.attempt = 1, 2...
//   });
//
// During an attempt, ctx.attempt is its number and ctx.deadline the attempt's
// deadline (the call's deadline tightened by per_attempt_timeout); both are
// restored afterwards. Waits end early when ctx.stop fires and never pass the
// deadline. When this layer gives up on a failure it could have retried
// (attempts, budget, deadline, pushback) or a downstream said do-not-retry,
// the returned status carries hints().do_not_retry and ctx.downstream_gave_up
// is set: servers turn that into `x-no-retry: 1`, so no layer above retries
// the same failure again (docs/chain-protocol.md).
//
// The bookkeeping around each decision (budget, events, the give-up mark)
// is a RetrySession (retry_session.h), which other drivers share.
//
// Cancellation: the driver does not interrupt a running attempt; the
// callable must honour ctx.stop and ctx.deadline (the pipeline's timeout
// policy arms a timer that fires ctx.stop at the attempt's deadline).
// Allocation: none on the success path.
#pragma once

#include <algorithm>
#include <memory>
#include <new>
#include <type_traits>

#include "stormguard/core/clock.h"
#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/core/internal/call_helpers.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/retry/retry_session.h"

namespace stormguard {

// What one ExecuteWithRetry call did, for tests, logs and the simulator.
struct RetryRun {
  int attempts = 0;
  StopReason reason = StopReason::kSucceeded;
  Duration waited = Duration::zero();
};

template <class F>
auto ExecuteWithRetry(const RetryPolicy& policy, CallContext& ctx, F&& fn, Clock& clock = Clock::Real(),
                      Random& rng = ThreadLocalRandom(), RetryRun* run = nullptr) {
  using R = std::invoke_result_t<F&, CallContext&>;
  const Deadline call_deadline = ctx.deadline;
  RetryRun local;
  RetryRun& r = run != nullptr ? *run : local;
  r = RetryRun{};
  // The success path reads no precise time unless it needs it: budgets get
  // the coarse clock, attempts need "now" only for a per-attempt timeout or
  // a listener's latency.
  const bool timed_attempts =
      policy.options().per_attempt_timeout != kInfiniteDuration || policy.options().listener != nullptr;
  // Coarse time is for the budget only: without one, no clock is read.
  const bool books = policy.budget() != nullptr;
  RetrySession session(policy, ctx, books ? clock.CoarseNow() : TimePoint());

  TimePoint start;  // of the current attempt, when timed
  auto run_attempt = [&] {
    start = timed_attempts ? clock.Now() : TimePoint();
    ctx.deadline = timed_attempts ? policy.AttemptDeadline(call_deadline, start) : call_deadline;
    ++r.attempts;
    R out = core_internal::InvokeCaught(fn, ctx);
    ctx.deadline = call_deadline;
    return out;
  };
  // One result for the whole call, named by every return: it is built in
  // the caller's slot and never moved. A retry rebuilds it in place, so a
  // Result<T> needs T move-constructible only, never assignable.
  R result = run_attempt();
  auto replace = [&result](auto make) noexcept {
    std::destroy_at(&result);
    ::new (static_cast<void*>(&result)) R(make());
  };
  for (;;) {
    Status& status = core_internal::MutableStatusOf(result);
    const OutcomeClass outcome = policy.Classify(status);
    if (outcome == OutcomeClass::kSuccess) {  // a success needs no decision
      if (session.quiet()) {
        session.OnQuietSuccess(ctx, books ? clock.CoarseNow() : TimePoint());
      } else {  // a failure below is timed exactly: its time decides the retry
        const core_internal::AttemptEnd end = core_internal::EndAttempt(clock, policy.attempt_timing(), start);
        session.OnSuccess(ctx, end.at, clock.CoarseNow(), end.duration, end.weight);
      }
      return result;
    }
    const TimePoint end = clock.Now();
    const RetryDecision d = session.OnAttemptEnd(status, outcome, ctx, end, clock.CoarseNow(),
                                                 timed_attempts ? end - start : Duration::zero(), rng);
    if (!d.retry) {
      r.reason = d.reason;
      return result;
    }
    const bool slept = clock.SleepUntil(std::min(SaturatingAdd(end, d.wait), call_deadline.time()), ctx.stop);
    r.waited += d.wait;
    if (!slept) {
      r.reason = StopReason::kCancelled;
      replace([&] { return R(session.OnWaitCancelled(ctx, clock.CoarseNow())); });
      return result;
    }
    ++ctx.attempt;
    replace(run_attempt);
  }
}

}  // namespace stormguard
