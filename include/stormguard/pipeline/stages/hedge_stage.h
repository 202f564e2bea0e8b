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
// Asynchronously (Pipeline::ExecuteAsync) the same HedgeSession decides
// (hedge/hedge_session.h), so the events and budget protocol are the
// blocking driver's, but no thread waits: the delay
// is a timer of the call's AsyncTimers, and each hedged attempt, primary
// included, is a branch of the call (pipeline/async_branch.h) started
// inline by whoever decided to launch it (a timer, a failed attempt's
// report), so the executor is not used. The first acceptable answer ends
// the call at once: the winner's value moves into the call's slot, the
// others are told to stop and their later reports are only booked (budget,
// events). A call that can never hedge (CheckCall) runs inline without a
// branch. Cost per hedged attempt: see async_branch.h. So a stage built
// without an executor (null) serves the asynchronous drivers only, and says
// so (blocking_unsupported()): a blocking Execute is refused, naming it.
//
// Thread safety: immutable; the executor is shared and must outlive it.
#pragma once

#include <memory>

#include "stormguard/hedge/hedge_driver.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class HedgeStage final : public Stage, public AsyncStage {
 public:
  // `executor`: where Execute runs hedged attempts; null for a stage run
  // only asynchronously.
  HedgeStage(HedgePolicy policy, std::shared_ptr<Executor> executor) noexcept
      : policy_(std::move(policy)), executor_(std::move(executor)) {}

  // Outside retry every hedged attempt would retry on its own. The hedge
  // drives its attempts, reporting each one's end, on several threads.
  static constexpr PlacementRule kRules[] = {
      {PlacementRule::kInside, "retry", "every hedged attempt would retry on its own; add it after AddRetry"}};
  static constexpr StagePlacement kPlacement{
      .kind = "hedge", .once = true, .rules = kRules, .reports_attempt_end = true, .concurrent = true};
  StagePlacement placement() const noexcept override { return kPlacement; }
  std::string_view name() const noexcept override { return "hedge"; }
  bool repeats_every_call() const noexcept override { return policy_.options().idempotent; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AsyncStage* async() const noexcept override { return this; }
  std::string_view blocking_unsupported() const noexcept override;
  AsyncStateLayout async_state() const noexcept override;
  void Start(AsyncStep step) const override;
  void Resume(AsyncStep step, Status inner) const override;

  const HedgePolicy& policy() const noexcept { return policy_; }

 private:
  HedgePolicy policy_;
  std::shared_ptr<Executor> executor_;
};

}  // namespace stormguard
