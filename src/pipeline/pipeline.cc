#include "stormguard/pipeline/pipeline.h"

#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/core/validation.h"

namespace stormguard {

namespace pipeline_internal {

namespace {

// The sampled end of the attempt from `start`: the coarse reading it takes
// becomes the pass's, and so does the precise one when it times the attempt.
core_internal::AttemptEnd EndSampled(const Invocation& inv, TimePoint start) noexcept {
  inv.coarse = inv.clock->CoarseNow();
  inv.has_coarse = true;
  const std::uint32_t weight = core_internal::SampledWeight(start, inv.coarse);
  if (weight == 0) return {.at = start};
  inv.now = inv.clock->Now();
  inv.has_now = true;
  return {.at = inv.now, .duration = inv.now - start, .weight = weight};
}

}  // namespace

Status CallListened(const Invocation& inv, CallContext& ctx) {
  const TimePoint start = inv.has_now ? inv.now : inv.clock->Now();
  inv.has_now = inv.has_coarse = false;
  if (inv.report_attempt_start) {
    inv.listener->OnEvent(Event{
        .kind = EventKind::kAttemptStarted, .policy = PolicyId::kPipeline, .at = start, .attempt = ctx.attempt});
  }
  Status s = inv.call(ctx);
  if (inv.sampled && !inv.report_attempt_end) return s;  // the retry or hedge times it
  core_internal::AttemptEnd end;
  if (inv.sampled) {
    end = EndSampled(inv, start);
  } else {
    inv.now = inv.clock->Now();
    inv.has_now = true;
    end = {.at = inv.now, .duration = inv.now - start, .weight = 1};
  }
  if (inv.report_attempt_end) ReportCallEnded(*inv.listener, inv.tally, end, ctx.attempt, inv.classifier->Classify(s));
  return s;
}

void ReportCallEnded(Listener& listener, SuccessTally* tally, const core_internal::AttemptEnd& end, int attempt,
                     OutcomeClass outcome) noexcept {
  if (tally != nullptr && end.weight == 0 && outcome == OutcomeClass::kSuccess) {
    return tally->Add(SuccessTally::kPipeline);
  }
  listener.OnEvent(Event{.kind = EventKind::kAttemptEnded,
                         .policy = PolicyId::kPipeline,
                         .at = end.at,
                         .attempt = attempt,
                         .outcome = outcome,
                         .weight = end.weight,
                         .duration = end.duration});
}

}  // namespace pipeline_internal

Status Pipeline::Run(CallContext& ctx, FunctionRef<Status(CallContext&)> call,
                     const FunctionRef<Status(const Status&)>* fallback) const {
  if (!blocking_unsupported_.ok()) [[unlikely]]
    return blocking_unsupported_;
  const pipeline_internal::Invocation inv{.stages = stages_.data(),
                                          .size = stages_.size(),
                                          .call = call,
                                          .fallback = fallback,
                                          .listener = listens_to_calls_ ? listener_ : nullptr,
                                          .tally = tally_,
                                          .clock = clock_,
                                          .classifier = classifier_,
                                          .report_attempt_start = report_attempt_start_,
                                          .report_attempt_end = report_attempt_end_,
                                          .sampled = sampled_};
  return Next(inv, 0)(ctx);
}

std::string Pipeline::Describe() const {
  std::string out;
  for (const auto& s : stages_) out += s->Describe() + " -> ";
  return out + "call";
}

std::string Pipeline::RepeatsEveryCall() const {
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    if (!stages_[i]->repeats_every_call()) continue;
    return "stages[" + std::to_string(i) + "] (" + std::string(stages_[i]->name()) +
           ") has idempotent = true: it would repeat every call after a timeout, a POST or a charge too, "
           "which may then take effect twice; leave it false: the client decides per call (an idempotent "
           "method such as GET, or an idempotency key)";
  }
  return {};
}

PipelineBuilder::PipelineBuilder(PipelineOptions options) : o_(options) {
  if (o_.clock == nullptr) errors_.push_back("options.clock: must not be null");
  if (o_.classifier == nullptr) errors_.push_back("options.classifier: must not be null");
  if (o_.clock == nullptr) o_.clock = &Clock::Real();  // Build() fails; stages need something
  if (o_.classifier == nullptr) o_.classifier = &DefaultClassifier();
  if (o_.timers == nullptr) o_.timers = &TimerService::Default();
}

std::string PipelineBuilder::Where(std::size_t i) const {
  return "stages[" + std::to_string(i) + "] (" + std::string(placements_[i].kind) + "): ";
}

bool PipelineBuilder::Invalid(const StagePlacement& placement, const std::vector<std::string>& errors) {
  if (errors.empty()) return false;
  placements_.push_back(placement);
  stages_.push_back(nullptr);
  for (const std::string& e : errors) errors_.push_back(Where(placements_.size() - 1) + e);
  return true;
}

template <class S>
PipelineBuilder& PipelineBuilder::AddCreated(const StagePlacement& placement, Result<std::unique_ptr<S>> stage) {
  if (!stage.ok()) {
    Invalid(placement, {stage.status().message()});
  } else {
    placements_.push_back(placement);
    stages_.push_back(std::move(stage).value());
  }
  return *this;
}

PipelineBuilder& PipelineBuilder::AddFallback(FallbackOptions options) {
  if (Invalid(FallbackStage::kPlacement, options.Validate())) return *this;
  return AddCreated(FallbackStage::kPlacement, FallbackStage::Create(std::move(options), o_.listener));
}

PipelineBuilder& PipelineBuilder::AddTimeout(TimeoutOptions options) {
  if (Invalid(TimeoutStage::kOverall, options.Validate())) return *this;
  return AddCreated(TimeoutStage::kOverall, TimeoutStage::Create(options, false, *o_.timers, o_.listener));
}

PipelineBuilder& PipelineBuilder::AddAttemptTimeout(TimeoutOptions options) {
  if (Invalid(TimeoutStage::kPerAttempt, options.Validate())) return *this;
  return AddCreated(TimeoutStage::kPerAttempt, TimeoutStage::Create(options, true, *o_.timers, o_.listener));
}

PipelineBuilder& PipelineBuilder::AddRetry(RetryOptions options) {
  if (Invalid(RetryStage::kPlacement, options.Validate())) return *this;
  if (options.listener == nullptr) options.listener = o_.listener;
  Result<RetryPolicy> policy = RetryPolicy::Create(std::move(options));
  if (!policy.ok()) return AddCreated<RetryStage>(RetryStage::kPlacement, std::move(policy).status());
  return AddCreated(RetryStage::kPlacement,
                    Result<std::unique_ptr<RetryStage>>(std::make_unique<RetryStage>(std::move(policy).value(),
                                                                                     *o_.clock)));
}

template <class S, class G, class... Args>
PipelineBuilder& PipelineBuilder::AddGuard(std::shared_ptr<G> guard, Args&&... args) {
  if (guard == nullptr) return AddCreated<S>(S::kPlacement, Status::InvalidArgument("must not be null"));
  return AddCreated(S::kPlacement,
                    Result<std::unique_ptr<S>>(std::make_unique<S>(std::move(guard), std::forward<Args>(args)...)));
}

template <class S, class G, class O, class... Args>
PipelineBuilder& PipelineBuilder::AddGuardFrom(O options, Args&&... args) {
  if (Invalid(S::kPlacement, options.Validate())) return *this;
  if (options.listener == nullptr) options.listener = o_.listener;
  auto guard = G::Create(options);
  if (!guard.ok()) return AddCreated<S>(S::kPlacement, std::move(guard).status());
  return AddGuard<S>(std::shared_ptr<G>(std::move(guard).value()), std::forward<Args>(args)...);
}

// The shared-guard overloads are templates only to keep braced lists away
// (pipeline.h); each has exactly one instantiation, made here.
template <std::same_as<CircuitBreaker> G>
PipelineBuilder& PipelineBuilder::AddCircuitBreaker(std::shared_ptr<G> breaker) {
  return AddGuard<CircuitBreakerStage>(std::move(breaker), *o_.classifier);
}
PipelineBuilder& PipelineBuilder::AddCircuitBreaker(CircuitBreakerOptions options) {
  if (options.timers == nullptr) options.timers = o_.timers;  // the automatic transition's
  return AddGuardFrom<CircuitBreakerStage, CircuitBreaker>(std::move(options), *o_.classifier);
}
template <std::same_as<Bulkhead> G>
PipelineBuilder& PipelineBuilder::AddBulkhead(std::shared_ptr<G> bulkhead) {
  return AddGuard<BulkheadStage>(std::move(bulkhead), *o_.clock);
}
PipelineBuilder& PipelineBuilder::AddBulkhead(BulkheadOptions options) {
  return AddGuardFrom<BulkheadStage, Bulkhead>(std::move(options), *o_.clock);
}
template <std::same_as<RateLimiter> G>
PipelineBuilder& PipelineBuilder::AddRateLimiter(std::shared_ptr<G> limiter) {
  return AddGuard<RateLimiterStage>(std::move(limiter), *o_.clock);
}
PipelineBuilder& PipelineBuilder::AddRateLimiter(RateLimiterOptions options) {
  return AddGuardFrom<RateLimiterStage, RateLimiter>(std::move(options), *o_.clock);
}
template <std::same_as<AdaptiveLimiter> G>
PipelineBuilder& PipelineBuilder::AddAdaptiveConcurrency(std::shared_ptr<G> limiter) {
  return AddGuard<AdaptiveConcurrencyStage>(std::move(limiter), *o_.classifier);
}
PipelineBuilder& PipelineBuilder::AddAdaptiveConcurrency(AdaptiveLimiterOptions options) {
  return AddGuardFrom<AdaptiveConcurrencyStage, AdaptiveLimiter>(std::move(options), *o_.classifier);
}

template <std::same_as<AdaptiveThrottle> G>
PipelineBuilder& PipelineBuilder::AddAdaptiveThrottle(std::shared_ptr<G> throttle) {
  return AddGuard<AdaptiveThrottleStage>(std::move(throttle), *o_.classifier);
}
PipelineBuilder& PipelineBuilder::AddAdaptiveThrottle(AdaptiveThrottleOptions options) {
  return AddGuardFrom<AdaptiveThrottleStage, AdaptiveThrottle>(std::move(options), *o_.classifier);
}

template <std::same_as<GlobalRateLimiter> G>
PipelineBuilder& PipelineBuilder::AddGlobalRateLimit(std::shared_ptr<G> limiter) {
  return AddGuard<GlobalRateLimitStage>(std::move(limiter));
}

template PipelineBuilder& PipelineBuilder::AddCircuitBreaker(std::shared_ptr<CircuitBreaker>);
template PipelineBuilder& PipelineBuilder::AddBulkhead(std::shared_ptr<Bulkhead>);
template PipelineBuilder& PipelineBuilder::AddRateLimiter(std::shared_ptr<RateLimiter>);
template PipelineBuilder& PipelineBuilder::AddAdaptiveConcurrency(std::shared_ptr<AdaptiveLimiter>);
template PipelineBuilder& PipelineBuilder::AddAdaptiveThrottle(std::shared_ptr<AdaptiveThrottle>);
template PipelineBuilder& PipelineBuilder::AddGlobalRateLimit(std::shared_ptr<GlobalRateLimiter>);

PipelineBuilder& PipelineBuilder::AddHedge(HedgeOptions options, std::shared_ptr<Executor> executor) {
  // A null here is more likely a lost executor than a choice: the choice is
  // the overload without one.
  if (executor == nullptr) {
    return AddCreated<HedgeStage>(
        HedgeStage::kPlacement,
        Status::InvalidArgument("executor: must not be null (leave it out, AddHedge(options), for a pipeline "
                                "run only asynchronously)"));
  }
  return AddHedgeOn(std::move(options), std::move(executor));
}

PipelineBuilder& PipelineBuilder::AddHedge(HedgeOptions options) { return AddHedgeOn(std::move(options), nullptr); }

PipelineBuilder& PipelineBuilder::AddHedgeOn(HedgeOptions options, std::shared_ptr<Executor> executor) {
  if (Invalid(HedgeStage::kPlacement, options.Validate())) return *this;
  if (options.listener == nullptr) options.listener = o_.listener;
  Result<HedgePolicy> policy = HedgePolicy::Create(std::move(options));
  if (!policy.ok()) return AddCreated<HedgeStage>(HedgeStage::kPlacement, std::move(policy).status());
  return AddCreated(HedgeStage::kPlacement,
                    Result<std::unique_ptr<HedgeStage>>(std::make_unique<HedgeStage>(std::move(policy).value(),
                                                                                     std::move(executor))));
}

PipelineBuilder& PipelineBuilder::AddRequireIdempotencyKey() {
  return AddCreated(IdempotencyKeyStage::kPlacement,
                    Result<std::unique_ptr<IdempotencyKeyStage>>(std::make_unique<IdempotencyKeyStage>(o_.listener)));
}

PipelineBuilder& PipelineBuilder::AddChaos(std::shared_ptr<ChaosPolicy> policy, ChaosStageOptions options) {
  const StagePlacement& placement =
      options.outside_retry_because.empty() ? ChaosStage::kPlacement : ChaosStage::kPlacementAnywhere;
  return AddCreated(placement, ChaosStage::Create(std::move(policy), *o_.clock, std::move(options)));
}

PipelineBuilder& PipelineBuilder::Add(std::shared_ptr<const Stage> stage) {
  StagePlacement placement;
  if (stage == nullptr) {
    errors_.push_back("stages[" + std::to_string(placements_.size()) + "]: must not be null");
  } else {
    placement = stage->placement();
    if (placement.kind.empty()) placement.kind = stage->name();
  }
  placements_.push_back(placement);
  stages_.push_back(std::move(stage));
  for (const PlacementRule& rule : placement.rules) {
    if (rule.of.empty()) {
      errors_.push_back(Where(placements_.size() - 1) + "a placement rule names no stage kind");
    }
  }
  return *this;
}

// The frame layout and the driver-neutral parts of the asynchronous form.
std::shared_ptr<const pipeline_internal::AsyncPlan> PipelineBuilder::MakeAsyncPlan(bool report_attempt_start,
                                                                                   bool report_attempt_end,
                                                                                   bool sampled) const {
  auto plan = std::make_shared<pipeline_internal::AsyncPlan>();
  plan->keep = stages_;
  plan->timers = std::make_shared<TimerServiceTimers>(*o_.timers);
  plan->clock = o_.clock;
  plan->listener = o_.listener;
  plan->tally = o_.listener != nullptr ? o_.listener->success_tally() : nullptr;
  plan->classifier = o_.classifier;
  plan->report_attempt_start = report_attempt_start;
  plan->report_attempt_end = report_attempt_end;
  plan->attempt_timing = sampled ? AttemptTiming::kSampled : AttemptTiming::kEvery;
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    const AsyncStage* stage = stages_[i]->async();
    if (stage == nullptr) {
      if (plan->unsupported.ok()) {
        plan->unsupported = Status::FailedPrecondition("pipeline: " + Where(i) +
                                                       "has no asynchronous form; run this pipeline with Execute()");
      }
      continue;
    }
    const AsyncStateLayout layout = stage->async_state();
    plan->state_bytes = (plan->state_bytes + layout.align - 1) & ~(layout.align - 1);
    plan->stages.push_back(stage);
    plan->layouts.push_back(layout);
    plan->offsets.push_back(plan->state_bytes);
    plan->state_bytes += layout.size;
  }
  return plan;
}

namespace pipeline_internal {

// A pipeline owned by the handles Build() hands out.
struct OwnedPipeline : PipelineRefCount {
  OwnedPipeline() : PipelineRefCount([](PipelineRefCount* c) noexcept { delete static_cast<OwnedPipeline*>(c); }, 1) {}
  Pipeline pipeline;
};

}  // namespace pipeline_internal

Result<PipelineRef> PipelineBuilder::Build() const {
  std::vector<std::string> errors = errors_;
  for (PlacementError& e : CheckPlacements(placements_)) errors.push_back(Where(e.index) + std::move(e.reason));
  if (!errors.empty()) return ValidationStatus("pipeline", errors);
  auto owned = std::make_unique<pipeline_internal::OwnedPipeline>();
  Pipeline& p = owned->pipeline;
  p.stages_ = stages_;
  p.clock_ = o_.clock;
  p.classifier_ = o_.classifier;
  p.listener_ = o_.listener;
  p.tally_ = o_.listener != nullptr ? o_.listener->success_tally() : nullptr;
  p.sampled_ = o_.listener != nullptr && o_.listener->attempt_timing() == AttemptTiming::kSampled;
  p.report_attempt_start_ = o_.listener != nullptr && o_.listener->wants_attempt_started();
  for (const StagePlacement& placement : placements_) {  // read once here, never per call
    if (placement.reports_attempt_end) p.report_attempt_end_ = false;
    if (placement.concurrent) p.concurrent_ = true;
  }
  // A sampled listener that neither wants the start nor gets the end from
  // the call (a retry or hedge times it) leaves the call as without one.
  p.listens_to_calls_ = o_.listener != nullptr && (p.report_attempt_start_ || p.report_attempt_end_ || !p.sampled_);
  for (std::size_t i = 0; i < stages_.size() && p.blocking_unsupported_.ok(); ++i) {
    const std::string_view why = stages_[i]->blocking_unsupported();
    if (!why.empty()) p.blocking_unsupported_ = Status::FailedPrecondition("pipeline: " + Where(i) + std::string(why));
  }
  p.async_ = MakeAsyncPlan(p.report_attempt_start_, p.report_attempt_end_, p.sampled_);
  return PipelineRef::Adopt(&p, owned.release());
}

}  // namespace stormguard
