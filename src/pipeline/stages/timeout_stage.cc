#include "stormguard/pipeline/stages/timeout_stage.h"

#include <cstdio>
#include <optional>
#include <utility>

#include "stormguard/core/duration_format.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

// Forwards the caller's cancellation to the attempt's own source.
struct StopForwarder {
  std::stop_source* target;
  void operator()() const noexcept { target->request_stop(); }
};

// Gives ctx the attempt's deadline and stop_token for its lifetime. The
// token is swapped in and out (no reference counting); the caller's token
// waits in the lease meanwhile. Forced inline like RunArmed, which it serves.
class AttemptScope {
 public:
  [[gnu::always_inline]] AttemptScope(CallContext& ctx, Deadline deadline, StopSourceLease& lease)
      : ctx_(ctx), lease_(lease), deadline_(std::exchange(ctx.deadline, deadline)) {
    // A token that can never stop (the usual empty one) needs no link, and
    // skipping it skips the stop_callback's out-of-line constructor and destructor.
    if (ctx.stop.stop_possible()) link_.emplace(ctx.stop, StopForwarder{&lease.source()});
    ctx.stop.swap(lease.token());  // the member swap exchanges the pointers only (std::swap moves)
  }
  [[gnu::always_inline]] ~AttemptScope() {
    ctx_.deadline = deadline_;
    ctx_.stop.swap(lease_.token());
  }
  AttemptScope(const AttemptScope&) = delete;
  AttemptScope& operator=(const AttemptScope&) = delete;

 private:
  CallContext& ctx_;
  StopSourceLease& lease_;
  Deadline deadline_;
  std::optional<std::stop_callback<StopForwarder>> link_;
};

}  // namespace

std::vector<std::string> TimeoutOptions::Validate() const {
  Validator v;
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  v.Check(abandon_after >= Duration::zero(), "abandon_after", "must not be negative");
  return std::move(v).errors();
}

Result<std::unique_ptr<TimeoutStage>> TimeoutStage::Create(TimeoutOptions options, bool per_attempt,
                                                           TimerService& timers, Listener* listener) {
  Status s = ValidationStatus("timeout options", options.Validate());
  if (!s.ok()) return s;
  if (options.adaptive != nullptr && !per_attempt) {
    return Status::InvalidArgument(
        "timeout options: adaptive: only a per-attempt timeout follows latency (use AddAttemptTimeout)");
  }
  return std::unique_ptr<TimeoutStage>(new TimeoutStage(options, per_attempt, timers, listener));
}

std::string TimeoutStage::Describe() const {
  if (const AdaptiveTimeout* a = o_.adaptive.get()) {
    const AdaptiveTimeoutOptions& ao = a->options();
    char q[32];
    std::snprintf(q, sizeof q, "q%g x%g", ao.quantile, ao.factor);
    return std::string(name()) + "(adaptive " + q + " in [" + FormatDuration(ao.min) + ", " + FormatDuration(ao.max) +
           "])";
  }
  return std::string(name()) + "(" + FormatDuration(o_.timeout) + ")";
}

// Both inline into Execute: the success path of every pipeline call passes
// here, and a call frame apiece costs more than the rest of their work.
[[gnu::always_inline]] inline Status TimeoutStage::RunArmed(CallContext& ctx, Next next, Deadline deadline,
                                                            StopSourceLease& lease, bool& fired) const {
  AttemptScope scope(ctx, deadline, lease);
  ScopedTimer timer(timers_, deadline.time(), lease.source());
  Status result = next(ctx);
  fired = timer.Disarm();
  return result;
}

[[gnu::always_inline]] inline Status TimeoutStage::Run(CallContext& ctx, Next next, Deadline deadline) const {
  StopSourceLease lease;  // outlives the scope and the timer that use it
  bool fired = false;
  Status result = RunArmed(ctx, next, deadline, lease, fired);
  if (fired) [[unlikely]]
    result = Fired(std::move(result), ctx, deadline, next.Now(), o_.timeout);
  return result;  // one named result: returned in place, never moved on success
}

// The attempt's timeout from the AdaptiveTimeout; the attempt booked with
// it afterwards. A cut-off counts only when this timeout (not the caller's
// earlier deadline) set the attempt's deadline: only then is its timeout
// what the attempt is known to have exceeded.
Status TimeoutStage::RunAdaptive(CallContext& ctx, Next next) const {
  const TimePoint start = next.Now();
  const Duration remaining = ctx.deadline.Remaining(start);
  const Duration given = o_.adaptive->TimeoutFor(start, remaining);
  const Deadline deadline = ctx.deadline.Within(start, given);
  if (deadline.Expired(start)) return Expired(ctx, start);
  StopSourceLease lease;
  bool fired = false;
  Status result = RunArmed(ctx, next, deadline, lease, fired);
  const TimePoint end = next.Now();
  o_.adaptive->RecordAttempt(
      {.elapsed = end - start, .given = given, .timed_out = fired && given < remaining, .ok = result.ok()}, end);
  if (fired) result = Fired(std::move(result), ctx, deadline, end, given);
  return result;
}

Status TimeoutStage::Execute(CallContext& ctx, Next next) const {
  if (o_.adaptive != nullptr) return RunAdaptive(ctx, next);
  if (o_.timeout == kInfiniteDuration && ctx.deadline.is_infinite()) return next(ctx);
  const TimePoint now = next.Now();
  const Deadline deadline = o_.timeout == kInfiniteDuration ? ctx.deadline : ctx.deadline.Within(now, o_.timeout);
  if (deadline.Expired(now)) return Expired(ctx, now);
  return Run(ctx, next, deadline);
}

Status TimeoutStage::Expired(const CallContext& ctx, TimePoint now) const {
  Emit(listener_, Event{.kind = EventKind::kRejected,
                        .policy = policy_id(),
                        .reason = "deadline_expired",
                        .at = now,
                        .attempt = ctx.attempt,
                        .outcome = OutcomeClass::kDeadlineExceeded});
  Status s = Status::DeadlineExceeded(std::string(name()) + ": no time left before the call").WithSource(name());
  s.mutable_hints().outcome = OutcomeClass::kDeadlineExceeded;
  return s;
}

Status TimeoutStage::Fired(Status result, const CallContext& ctx, Deadline deadline, TimePoint end,
                           Duration given) const {
  const Duration overrun = end > deadline.time() ? end - deadline.time() : Duration::zero();
  timed_out_.fetch_add(1, std::memory_order_relaxed);
  Emit(listener_, Event{.kind = EventKind::kTimedOut,
                        .policy = policy_id(),
                        .reason = "deadline",
                        .at = end,
                        .attempt = ctx.attempt,
                        .outcome = OutcomeClass::kAmbiguous,
                        .duration = overrun});
  if (overrun > o_.abandon_after) {
    abandoned_.fetch_add(1, std::memory_order_relaxed);
    Emit(listener_, Event{.kind = EventKind::kAbandoned,
                          .policy = policy_id(),
                          .reason = "ignored_stop",
                          .at = end,
                          .attempt = ctx.attempt,
                          .outcome = OutcomeClass::kAmbiguous,
                          .duration = overrun});
  }
  if (result.ok()) return result;  // it finished after all: keep the answer
  return Status::DeadlineExceeded(std::string(name()) + ": deadline passed (timeout " + FormatDuration(given) + ")")
      .WithSource(name());
}

}  // namespace stormguard
