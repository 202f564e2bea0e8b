#include "stormguard/pipeline/presets.h"

namespace stormguard::presets {
using namespace std::chrono_literals;

PipelineBuilder UserFacing(UserFacingOptions o, PipelineOptions env) {
  PipelineBuilder b(env);
  if (!o.at_entry) {
    // A middle hop: only the propagated deadline, and it really cancels.
    b.AddTimeout(kInfiniteDuration);
    return b;
  }
  b.AddTimeout(o.entry_timeout)
      .AddRetry({.max_attempts = o.max_attempts,
                 .backoff = {.kind = BackoffKind::kExponential,
                             .base = 100ms,
                             .cap = o.entry_timeout,
                             .jitter = Jitter::kFull},
                 .idempotent = o.idempotent,
                 .budget = std::move(o.budget)});
  return b;
}

PipelineBuilder BackgroundJob(BackgroundJobOptions o, PipelineOptions env) {
  PipelineBuilder b(env);
  b.AddRetry({.max_attempts = o.max_attempts,
              .backoff = {.kind = BackoffKind::kExponential, .base = 1s, .cap = 10min, .jitter = Jitter::kFull},
              .idempotent = true,
              .budget = std::move(o.budget)})
      .AddAttemptTimeout(o.attempt_timeout);
  return b;
}

PipelineBuilder ThirdPartyApi(ThirdPartyApiOptions o, PipelineOptions env) {
  PipelineBuilder b(env);
  b.AddRequireIdempotencyKey().AddRetry({.max_attempts = o.max_attempts,
                                         .backoff = {.kind = BackoffKind::kExponential,
                                                     .base = 1s,
                                                     .multiplier = 2.0,
                                                     .cap = 2400ms,
                                                     .jitter = Jitter::kProportional,
                                                     .proportion = 0.2},
                                         .budget = std::move(o.budget)});
  if (o.breaker != nullptr) {
    b.AddCircuitBreaker(std::move(o.breaker));
  } else {
    b.AddCircuitBreaker(CircuitBreakerOptions{});
  }
  b.AddAttemptTimeout(o.attempt_timeout);
  return b;
}

PipelineBuilder Payment(PaymentOptions o, PipelineOptions env) {
  PipelineBuilder b(env);
  b.AddRequireIdempotencyKey()
      .AddFallback({.on_outcomes = {OutcomeClass::kTransient, OutcomeClass::kAmbiguous,
                                    OutcomeClass::kDeadlineExceeded},
                    .on_any_rejection = false,
                    .on_rejected_by = {"timeout"}})
      .AddTimeout(o.promised_timeout);
  return b;
}

PipelineBuilder HighFanOut(HighFanOutOptions o, PipelineOptions env) {
  PipelineBuilder b(env);
  b.AddFallback({.on_outcomes = OutcomeSet::All().Without(OutcomeClass::kSuccess),
                 .on_any_rejection = true,
                 .skip_when_remaining_below = o.skip_when_remaining_below})
      .AddTimeout(o.per_downstream_timeout);
  return b;
}

}  // namespace stormguard::presets
