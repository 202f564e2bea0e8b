// stormguard/pipeline/stages/timeout_stage.h: timeouts that really cancel (docs/deadlines.md, rule 3).
//
// A TimeoutStage gives what runs inside it a deadline, min(the call's
// deadline, now + timeout), and its own std::stop_source linked to the
// caller's stop_token. A timer on the shared TimerService requests stop at
// that deadline, so a callable that honours ctx.stop ends on time. The
// pipeline uses it twice: an overall timeout (outside retry, bounds every
// attempt and wait together) and a per-attempt timeout (inside retry):
//
//   PipelineBuilder(env).AddTimeout(1s).AddRetry({...}).AddAttemptTimeout(300ms)
//
// What the caller gets back:
//   - the deadline had already passed: DEADLINE_EXCEEDED at once, without
//     calling (source = the stage's name, class kDeadlineExceeded);
//   - the timer fired and the callable failed (usually CANCELLED because it
//     saw the stop): DEADLINE_EXCEEDED (source = the stage's name; the
//     default classifier calls it ambiguous: the callee may have run it);
//   - the timer fired but the callable still succeeded: its success.
// When the timer fired, kTimedOut is reported; when the callable returned
// more than `abandon_after` past the deadline (it ignored the stop), also
// kAbandoned with the overrun as duration, and abandoned() counts it.
//
// Adaptive per-attempt timeout (TimeoutOptions::adaptive): each attempt's
// timeout comes from the AdaptiveTimeout (hedge/adaptive_timeout.h) when it
// starts, instead of `timeout`, and each attempt is booked with it when it
// ends (a success as its latency, an attempt this timer cut off as the
// timeout it was given), so the timeout follows the destination.
//
// Execute blocks: the calling thread waits until the callable returns,
// however late (the asynchronous form resumes only then, too), so a bulkhead slot taken outside this stage stays
// taken until the abandoned work really ends. For callables that ignore
// cancellation, where the caller must have its answer at the deadline, see
// time_limiter.h (the work runs detached on an executor, bounded).
//
// Allocation: std::stop_source allocates its shared state; Execute lends
// one in place from a small per-thread pool of sources that were never
// stopped (StopSourceLease: up to 8 per thread, so nested timeouts reuse
// theirs), and the asynchronous form takes one from a per-thread pool and
// returns it to the pool of the thread that resumes it (PooledStop), so the
// success path allocates nothing after warm-up; the attempt's token is
// swapped into ctx.stop and back, so no reference count moves either. A
// stopped source is never reused, nor one whose token the callable
// replaced in ctx.stop. A callable must not keep a copy of the attempt's
// stop_token after it returns (or reports): the source behind it may serve
// a later call.
// Thread safety: a TimeoutStage is immutable and shared; counters are atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "stormguard/core/stop_source_lease.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/hedge/adaptive_timeout.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

struct TimeoutOptions {
  // kInfiniteDuration: only the call's own deadline applies (it still fires).
  Duration timeout = std::chrono::seconds(1);
  // A callable that returns later than this after the deadline is reported
  // as abandoned: it kept running after it was told to stop.
  Duration abandon_after = std::chrono::milliseconds(10);
  // Optional, per-attempt timeouts only: each attempt's timeout follows
  // observed latency (see banner); `timeout` is then not used.
  std::shared_ptr<const AdaptiveTimeout> adaptive;

  std::vector<std::string> Validate() const;
};

class TimeoutStage final : public Stage, public AsyncStage {
 public:
  // The overall timeout bounds every attempt and wait together, outside
  // retry; the per-attempt one bounds one attempt, inside retry.
  static constexpr PlacementRule kOverallRules[] = {
      {PlacementRule::kOutside, "retry",
       "it restarts with every attempt; add it before AddRetry, or use AddAttemptTimeout"}};
  static constexpr StagePlacement kOverall{.kind = "timeout", .once = true, .rules = kOverallRules};
  static constexpr PlacementRule kPerAttemptRules[] = {
      {PlacementRule::kInside, "retry", "it bounds all attempts together; add it after AddRetry, or use AddTimeout"}};
  static constexpr StagePlacement kPerAttempt{.kind = "attempt_timeout", .once = true, .rules = kPerAttemptRules};

  // `per_attempt` picks the per-attempt timeout (named "attempt_timeout")
  // or the overall one (named "timeout").
  static Result<std::unique_ptr<TimeoutStage>> Create(TimeoutOptions options, bool per_attempt, TimerService& timers,
                                                      Listener* listener);

  std::string_view name() const noexcept override { return per_attempt_ ? kPerAttempt.kind : kOverall.kind; }
  StagePlacement placement() const noexcept override { return per_attempt_ ? kPerAttempt : kOverall; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;

  const TimeoutOptions& options() const noexcept { return o_; }
  std::uint64_t timed_out() const noexcept { return timed_out_.load(std::memory_order_relaxed); }
  std::uint64_t abandoned() const noexcept { return abandoned_.load(std::memory_order_relaxed); }

 private:
  TimeoutStage(TimeoutOptions o, bool per_attempt, TimerService& timers, Listener* l) noexcept
      : o_(o), per_attempt_(per_attempt), timers_(timers), listener_(l) {}
  Status Run(CallContext& ctx, Next next, Deadline deadline) const;
  Status RunArmed(CallContext& ctx, Next next, Deadline deadline, StopSourceLease& lease, bool& fired) const;
  Status RunAdaptive(CallContext& ctx, Next next) const;
  Status Expired(const CallContext& ctx, TimePoint now) const;
  Status Fired(Status result, const CallContext& ctx, Deadline deadline, TimePoint end, Duration given) const;
  PolicyId policy_id() const noexcept { return per_attempt_ ? PolicyId::kAttemptTimeout : PolicyId::kTimeout; }

  TimeoutOptions o_;
  bool per_attempt_;
  TimerService& timers_;
  Listener* listener_;
  mutable std::atomic<std::uint64_t> timed_out_{0};
  mutable std::atomic<std::uint64_t> abandoned_{0};
};

}  // namespace stormguard
