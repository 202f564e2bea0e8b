// stormguard/pipeline/stages/chaos_stage.h: a ChaosPolicy (chaos/chaos_policy.h) as a pipeline stage.
//
// Chaos belongs innermost, inside the retry: then every attempt may be hit
// and the retry, breaker and timeouts around it meet the injected faults as
// they would meet real ones. Outside the retry one injection fails the whole
// call and the retry never sees it, so the builder refuses that unless the
// options say why it is meant:
//
//   PipelineBuilder(env).AddRetry({...}).AddAttemptTimeout(300ms).AddChaos(latency);
//   PipelineBuilder(env).AddChaos(error, {.outside_retry_because = "whole-call failures"}).AddRetry({...});
//
// An injected latency waits on the pipeline's clock (Execute) or as a timer
// of the driver (the asynchronous form: no thread waits), and ends early
// at the call's stop or deadline.
// Thread safety: immutable; the policy's switches are atomics.
#pragma once

#include <memory>
#include <string>

#include "stormguard/chaos/chaos_policy.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

struct ChaosStageOptions {
  // Non-empty: the stage may sit outside the retry, for this reason.
  std::string outside_retry_because;
};

class ChaosStage final : public Stage, public AsyncStage {
 public:
  static constexpr PlacementRule kRules[] = {
      {PlacementRule::kInside, "retry",
       "retries would never see an injected fault; add it after AddRetry, or set outside_retry_because"}};
  static constexpr StagePlacement kPlacement{.kind = "chaos", .rules = kRules};
  static constexpr StagePlacement kPlacementAnywhere{.kind = "chaos"};

  // INVALID_ARGUMENT when `policy` is null.
  static Result<std::unique_ptr<ChaosStage>> Create(std::shared_ptr<ChaosPolicy> policy, Clock& clock,
                                                    ChaosStageOptions options = {});

  std::string_view name() const noexcept override { return ChaosPolicy::kPolicy; }
  StagePlacement placement() const noexcept override {
    return o_.outside_retry_because.empty() ? kPlacement : kPlacementAnywhere;
  }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;

  const ChaosPolicy& policy() const noexcept { return *policy_; }

 private:
  ChaosStage(std::shared_ptr<ChaosPolicy> p, Clock& clock, ChaosStageOptions o) noexcept
      : policy_(std::move(p)), clock_(clock), o_(std::move(o)) {}
  // Why an injected delay ended before the call could run; OK when it may run.
  static Status DelayCut(const CallContext& ctx, TimePoint now);

  std::shared_ptr<ChaosPolicy> policy_;
  Clock& clock_;
  ChaosStageOptions o_;
};

}  // namespace stormguard
