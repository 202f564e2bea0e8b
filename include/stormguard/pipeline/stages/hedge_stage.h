// stormguard/pipeline/stages/hedge_stage.h: hedged requests as a pipeline stage.
//
// HedgeStage runs the rest of the pipeline through ExecuteHedged
// (hedge/hedge_driver.h): the primary attempt on the calling thread, hedges
// on the executor after the policy's delay, the first acceptable answer
// wins and the others are cancelled through their stop tokens. Every stage
// after it runs once per hedged attempt, on that attempt's thread, each
// with its own NextBranch, so a breaker or bulkhead inside sees every
// hedge as an attempt and a per-attempt timeout bounds each one:
//
//   builder.AddRetry({...}).AddHedge({.delay = 50ms, .idempotent = true}, executor)
//          .AddCircuitBreaker(breaker).AddAttemptTimeout(300ms);
//
// The callable runs concurrently and must allow that (the hedge driver's
// rule: idempotent, independent invocations). For a Result<T> call, the
// value kept is the first one a successful attempt produced. The stage
// returns only when every attempt has ended (the driver's guarantee), so
// the rest of the pipeline never outlives the call.
//
// It has no asynchronous form yet: Pipeline::ExecuteAsync refuses a
// pipeline that holds one (FAILED_PRECONDITION naming the stage).
//
// Thread safety: immutable; the executor is shared and must outlive it.
#pragma once

#include <memory>

#include "stormguard/hedge/hedge_driver.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class HedgeStage final : public Stage {
 public:
  HedgeStage(HedgePolicy policy, std::shared_ptr<Executor> executor) noexcept
      : policy_(std::move(policy)), executor_(std::move(executor)) {}

  // Outside retry every hedged attempt would retry on its own. The hedge
  // drives its attempts, reporting each one's end, on several threads.
  static constexpr PlacementRule kRules[] = {
      {PlacementRule::kInside, "retry",
       "every hedged attempt would retry on its own; add it after AddRetry"}};
  static constexpr StagePlacement kPlacement{
      .kind = "hedge", .once = true, .rules = kRules, .reports_attempt_end = true, .concurrent = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return "hedge"; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;

  const HedgePolicy& policy() const noexcept { return policy_; }

 private:
  HedgePolicy policy_;
  std::shared_ptr<Executor> executor_;
};

}  // namespace stormguard
