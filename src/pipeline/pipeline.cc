#include "stormguard/pipeline/pipeline.h"

#include "stormguard/core/validation.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard {

std::string_view StageKindName(StageKind k) noexcept {
  switch (k) {
    case StageKind::kFallback: return "fallback";
    case StageKind::kTimeout: return "timeout";
    case StageKind::kRetry: return "retry";
    case StageKind::kHedge: return "hedge";
    case StageKind::kCircuitBreaker: return "circuit_breaker";
    case StageKind::kBulkhead: return "bulkhead";
    case StageKind::kRateLimiter: return "rate_limiter";
    case StageKind::kAdaptiveConcurrency: return "adaptive_concurrency";
    case StageKind::kAttemptTimeout: return "attempt_timeout";
    case StageKind::kIdempotencyKey: return "idempotency_key";
    case StageKind::kCustom: return "custom";
  }
  return "unknown";
}

namespace pipeline_internal {

Status CallListened(const Invocation& inv, CallContext& ctx) {
  const TimePoint start = inv.clock->Now();
  inv.listener->OnEvent(Event{.kind = EventKind::kAttemptStarted, .policy = "pipeline", .at = start,
                              .attempt = ctx.attempt});
  Status s = inv.call(ctx);
  if (inv.report_attempt_end) {
    const TimePoint end = inv.clock->Now();
    inv.listener->OnEvent(Event{.kind = EventKind::kAttemptEnded, .policy = "pipeline", .at = end,
                                .attempt = ctx.attempt, .outcome = inv.classifier->Classify(s),
                                .duration = end - start});
  }
  return s;
}

}  // namespace pipeline_internal

Status Pipeline::Run(CallContext& ctx, FunctionRef<Status(CallContext&)> call,
                     const FunctionRef<Status(const Status&)>* fallback) const {
  const pipeline_internal::Invocation inv{.stages = stages_.data(),
                                          .size = stages_.size(),
                                          .call = call,
                                          .fallback = fallback,
                                          .listener = listener_,
                                          .clock = clock_,
                                          .classifier = classifier_,
                                          .report_attempt_end = report_attempt_end_};
  return Next(inv, 0)(ctx);
}

std::string Pipeline::Describe() const {
  std::string out;
  for (const auto& s : stages_) out += s->Describe() + " -> ";
  return out + "call";
}

PipelineBuilder::PipelineBuilder(PipelineOptions options) : o_(options) {
  if (o_.clock == nullptr) errors_.push_back("options.clock: must not be null");
  if (o_.classifier == nullptr) errors_.push_back("options.classifier: must not be null");
  if (o_.clock == nullptr) o_.clock = &Clock::Real();  // Build() fails; stages need something
  if (o_.classifier == nullptr) o_.classifier = &DefaultClassifier();
  if (o_.timers == nullptr) o_.timers = &TimerService::Default();
}

std::string PipelineBuilder::Where(std::size_t i) const {
  return "stages[" + std::to_string(i) + "] (" + std::string(StageKindName(kinds_[i])) + "): ";
}

bool PipelineBuilder::Invalid(StageKind kind, const std::vector<std::string>& errors) {
  if (errors.empty()) return false;
  kinds_.push_back(kind);
  stages_.push_back(nullptr);
  for (const std::string& e : errors) errors_.push_back(Where(kinds_.size() - 1) + e);
  return true;
}

template <class S>
PipelineBuilder& PipelineBuilder::AddCreated(StageKind kind, Result<std::unique_ptr<S>> stage) {
  if (!stage.ok()) {
    Invalid(kind, {stage.status().message()});
  } else {
    kinds_.push_back(kind);
    stages_.push_back(std::move(stage).value());
  }
  return *this;
}

PipelineBuilder& PipelineBuilder::AddFallback(FallbackOptions options) {
  if (Invalid(StageKind::kFallback, options.Validate())) return *this;
  return AddCreated(StageKind::kFallback, FallbackStage::Create(std::move(options), o_.listener));
}

PipelineBuilder& PipelineBuilder::AddTimeout(TimeoutOptions options) {
  if (Invalid(StageKind::kTimeout, options.Validate())) return *this;
  return AddCreated(StageKind::kTimeout,
                    TimeoutStage::Create(options, false, *o_.timers, o_.listener));
}

PipelineBuilder& PipelineBuilder::AddAttemptTimeout(TimeoutOptions options) {
  if (Invalid(StageKind::kAttemptTimeout, options.Validate())) return *this;
  return AddCreated(StageKind::kAttemptTimeout,
                    TimeoutStage::Create(options, true, *o_.timers, o_.listener));
}

PipelineBuilder& PipelineBuilder::AddRetry(RetryOptions options) {
  if (Invalid(StageKind::kRetry, options.Validate())) return *this;
  if (options.listener == nullptr) options.listener = o_.listener;
  Result<RetryPolicy> policy = RetryPolicy::Create(std::move(options));
  if (!policy.ok()) return AddCreated<RetryStage>(StageKind::kRetry, std::move(policy).status());
  return AddCreated(StageKind::kRetry,
                    Result<std::unique_ptr<RetryStage>>(
                        std::make_unique<RetryStage>(std::move(policy).value(), *o_.clock)));
}

template <class S, class G, class... Args>
PipelineBuilder& PipelineBuilder::AddGuard(StageKind kind, std::shared_ptr<G> guard, Args&&... args) {
  if (guard == nullptr) return AddCreated<S>(kind, Status::InvalidArgument("must not be null"));
  return AddCreated(
      kind, Result<std::unique_ptr<S>>(std::make_unique<S>(std::move(guard), std::forward<Args>(args)...)));
}

template <class S, class G, class O, class... Args>
PipelineBuilder& PipelineBuilder::AddGuardFrom(StageKind kind, O options, Args&&... args) {
  if (Invalid(kind, options.Validate())) return *this;
  if (options.listener == nullptr) options.listener = o_.listener;
  auto guard = G::Create(options);
  if (!guard.ok()) return AddCreated<S>(kind, std::move(guard).status());
  return AddGuard<S>(kind, std::shared_ptr<G>(std::move(guard).value()), std::forward<Args>(args)...);
}

// The shared-guard overloads are templates only to keep braced lists away
// (pipeline.h); each has exactly one instantiation, made here.
template <std::same_as<CircuitBreaker> G>
PipelineBuilder& PipelineBuilder::AddCircuitBreaker(std::shared_ptr<G> breaker) {
  return AddGuard<CircuitBreakerStage>(StageKind::kCircuitBreaker, std::move(breaker), *o_.classifier);
}
PipelineBuilder& PipelineBuilder::AddCircuitBreaker(CircuitBreakerOptions options) {
  return AddGuardFrom<CircuitBreakerStage, CircuitBreaker>(StageKind::kCircuitBreaker, std::move(options),
                                                           *o_.classifier);
}
template <std::same_as<Bulkhead> G>
PipelineBuilder& PipelineBuilder::AddBulkhead(std::shared_ptr<G> bulkhead) {
  return AddGuard<BulkheadStage>(StageKind::kBulkhead, std::move(bulkhead), *o_.clock);
}
PipelineBuilder& PipelineBuilder::AddBulkhead(BulkheadOptions options) {
  return AddGuardFrom<BulkheadStage, Bulkhead>(StageKind::kBulkhead, std::move(options), *o_.clock);
}
template <std::same_as<RateLimiter> G>
PipelineBuilder& PipelineBuilder::AddRateLimiter(std::shared_ptr<G> limiter) {
  return AddGuard<RateLimiterStage>(StageKind::kRateLimiter, std::move(limiter), *o_.clock);
}
PipelineBuilder& PipelineBuilder::AddRateLimiter(RateLimiterOptions options) {
  return AddGuardFrom<RateLimiterStage, RateLimiter>(StageKind::kRateLimiter, std::move(options), *o_.clock);
}
template <std::same_as<AdaptiveLimiter> G>
PipelineBuilder& PipelineBuilder::AddAdaptiveConcurrency(std::shared_ptr<G> limiter) {
  return AddGuard<AdaptiveConcurrencyStage>(StageKind::kAdaptiveConcurrency, std::move(limiter),
                                            *o_.classifier);
}
PipelineBuilder& PipelineBuilder::AddAdaptiveConcurrency(AdaptiveLimiterOptions options) {
  return AddGuardFrom<AdaptiveConcurrencyStage, AdaptiveLimiter>(StageKind::kAdaptiveConcurrency,
                                                                 std::move(options), *o_.classifier);
}

template PipelineBuilder& PipelineBuilder::AddCircuitBreaker(std::shared_ptr<CircuitBreaker>);
template PipelineBuilder& PipelineBuilder::AddBulkhead(std::shared_ptr<Bulkhead>);
template PipelineBuilder& PipelineBuilder::AddRateLimiter(std::shared_ptr<RateLimiter>);
template PipelineBuilder& PipelineBuilder::AddAdaptiveConcurrency(std::shared_ptr<AdaptiveLimiter>);

PipelineBuilder& PipelineBuilder::AddHedge(HedgeOptions options, std::shared_ptr<Executor> executor) {
  if (executor == nullptr) {
    return AddCreated<HedgeStage>(StageKind::kHedge, Status::InvalidArgument("executor: must not be null"));
  }
  if (Invalid(StageKind::kHedge, options.Validate())) return *this;
  if (options.listener == nullptr) options.listener = o_.listener;
  Result<HedgePolicy> policy = HedgePolicy::Create(std::move(options));
  if (!policy.ok()) return AddCreated<HedgeStage>(StageKind::kHedge, std::move(policy).status());
  return AddCreated(StageKind::kHedge, Result<std::unique_ptr<HedgeStage>>(std::make_unique<HedgeStage>(
                                           std::move(policy).value(), std::move(executor))));
}

PipelineBuilder& PipelineBuilder::AddRequireIdempotencyKey() {
  return AddCreated(StageKind::kIdempotencyKey, Result<std::unique_ptr<IdempotencyKeyStage>>(
                                                    std::make_unique<IdempotencyKeyStage>(o_.listener)));
}

PipelineBuilder& PipelineBuilder::Add(std::shared_ptr<const Stage> stage) {
  if (stage == nullptr) {
    errors_.push_back("stages[" + std::to_string(kinds_.size()) + "]: must not be null");
    kinds_.push_back(StageKind::kCustom);
  } else {
    kinds_.push_back(stage->kind());
  }
  stages_.push_back(std::move(stage));
  return *this;
}

std::vector<std::string> PipelineBuilder::OrderErrors() const {
  std::vector<std::string> errors;
  const std::size_t none = kinds_.size();
  std::size_t retry = none;
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (kinds_[j] == kinds_[i] && kinds_[i] != StageKind::kCustom) {
        errors.push_back(Where(i) + "a second " + std::string(StageKindName(kinds_[i])) +
                         " stage (the first is stages[" + std::to_string(j) + "])");
        break;
      }
    }
    if (kinds_[i] == StageKind::kRetry && retry == none) retry = i;
  }
  if (retry == none) return errors;
  const std::string in_retry = "stages[" + std::to_string(retry) + "]";
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    if (kinds_[i] == StageKind::kAttemptTimeout && i < retry) {
      errors.push_back(Where(i) + "outside retry (" + in_retry +
                       ") it bounds all attempts together; add it after AddRetry, or use AddTimeout");
    }
    if (kinds_[i] == StageKind::kTimeout && i > retry) {
      errors.push_back(Where(i) + "inside retry (" + in_retry +
                       ") it restarts with every attempt; add it before AddRetry, or use AddAttemptTimeout");
    }
    if (kinds_[i] == StageKind::kHedge && i < retry) {
      errors.push_back(Where(i) + "outside retry (" + in_retry +
                       ") every hedged attempt would retry on its own; add it after AddRetry");
    }
    if (kinds_[i] == StageKind::kFallback && i > retry) {
      errors.push_back(Where(i) + "inside retry (" + in_retry +
                       ") it hides failures from the retry; add it before AddRetry");
    }
  }
  return errors;
}

Result<Pipeline> PipelineBuilder::Build() const {
  std::vector<std::string> errors = errors_;
  for (std::string& e : OrderErrors()) errors.push_back(std::move(e));
  if (!errors.empty()) return ValidationStatus("pipeline", errors);
  Pipeline p;
  p.stages_ = stages_;
  p.clock_ = o_.clock;
  p.classifier_ = o_.classifier;
  p.listener_ = o_.listener;
  for (StageKind k : kinds_) {
    // Retry and hedge drivers report attempt ends themselves.
    if (k == StageKind::kRetry || k == StageKind::kHedge) p.report_attempt_end_ = false;
    if (k == StageKind::kHedge) p.concurrent_ = true;
  }
  return p;
}

}  // namespace stormguard
