#include "stormguard/sim/deadline_demo.h"

#include "stormguard/core/validation.h"
#include "stormguard/retry/retry_driver.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard::sim {

std::vector<std::string> DeadlineOptions::Validate() const {
  Validator v;
  v.Check(budget > Duration::zero(), "budget", "must be positive");
  v.Check(call >= Duration::zero(), "call", "must not be negative");
  v.Check(min_call >= Duration::zero(), "min_call", "must not be negative");
  // Every attempt is kept for the report.
  v.Check(max_attempts >= 1 && max_attempts <= 1000, "max_attempts", "must be in [1, 1000]");
  return std::move(v).errors();
}

std::string_view StopExplanation(StopReason r) noexcept {
  switch (r) {
    case StopReason::kSucceeded: return "the call succeeded";
    case StopReason::kCancelled: return "the caller cancelled";
    case StopReason::kDownstreamGaveUp: return "a downstream already gave up retrying";
    case StopReason::kNotRetryable: return "the failure is not one a retry can fix";
    case StopReason::kNotIdempotent: return "the outcome is unknown and the call is not idempotent";
    case StopReason::kIncomingRetry: return "the request being served is itself a retry";
    case StopReason::kAttemptsExhausted: return "no attempts are left";
    case StopReason::kPushbackStop: return "the server asked not to retry";
    case StopReason::kDeadline: return "the remaining budget cannot fit another wait plus a call";
    case StopReason::kBudgetExhausted: return "the retry budget is exhausted";
  }
  return "unknown";
}

namespace {

// Collects the wait of every scheduled retry.
class WaitLog final : public Listener {
 public:
  void OnEvent(const Event& e) noexcept override {
    if (e.kind == EventKind::kRetryScheduled) waits.push_back(e.duration);
  }
  std::vector<Duration> waits;
};

}  // namespace

Result<DeadlineResult> RunDeadlineDemo(const DeadlineOptions& o) {
  Status s = ValidationStatus("deadline options", o.Validate());
  if (!s.ok()) return s;
  auto bucket = TokenBucketBudget::Create({.max_tokens = o.max_tokens, .token_ratio = o.token_ratio});
  if (!bucket.ok()) return std::move(bucket).status();
  WaitLog log;
  auto policy = RetryPolicy::Create(
      {.max_attempts = o.max_attempts,
       .backoff = {.kind = BackoffKind::kExponential, .base = o.base, .cap = o.cap, .jitter = Jitter::kFull},
       .min_attempt_time = o.min_call,
       .budget = *bucket,
       .listener = &log});
  if (!policy.ok()) return std::move(policy).status();

  ManualClock clock;  // advances on sleep: the driver's waits take no real time
  Random rng(o.seed);
  const TimePoint start = clock.Now();
  CallContext ctx{.deadline = Deadline::After(start, o.budget)};
  DeadlineResult out{.options = o};
  RetryRun run;
  const Status final = ExecuteWithRetry(
      *policy, ctx,
      [&](CallContext& attempt) {
        out.attempts.push_back({.number = attempt.attempt, .start = clock.Now() - start});
        clock.Advance(o.call);
        out.attempts.back().end = clock.Now() - start;
        return StatusFromHttp(503);
      },
      clock, rng, &run);
  for (std::size_t i = 0; i < log.waits.size() && i < out.attempts.size(); ++i) out.attempts[i].wait = log.waits[i];
  out.calls = run.attempts;
  out.tokens_left = (*bucket)->tokens();
  out.stop_reason = run.reason;
  out.elapsed = clock.Now() - start;
  out.final_status = final.ToString();
  return out;
}

}  // namespace stormguard::sim
