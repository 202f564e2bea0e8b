#include "stormguard/pipeline/stages/hedge_stage.h"

#include <atomic>
#include <cmath>
#include <string>

#include "stormguard/core/duration_format.h"

namespace stormguard {

std::string HedgeStage::Describe() const {
  const HedgeOptions& o = policy_.options();
  return "hedge(" + std::to_string(o.max_hedged_attempts) + " after " +
         (o.latency != nullptr ? "p" + std::to_string(std::lround(o.quantile * 100)) : FormatDuration(o.delay)) + ")";
}

std::string_view HedgeStage::blocking_unsupported() const noexcept {
  if (executor_ != nullptr) return {};
  return "has no Executor to run its hedged attempts on under Execute(): give it one "
         "(AddHedge(options, executor)), or run this pipeline with ExecuteAsync() or the coroutine driver";
}

Status HedgeStage::Execute(CallContext& ctx, Next next) const {
  std::atomic<std::uint32_t> calls{0};
  Status s = ExecuteHedged(
      policy_, ctx,
      [next, &calls](CallContext& attempt) {
        const NextBranch branch(next);
        Status result = branch(attempt);
        calls.fetch_add(branch.calls(), std::memory_order_relaxed);
        return result;
      },
      *executor_);
  next.AddCalls(calls.load(std::memory_order_relaxed));  // every attempt has ended
  return s;
}

}  // namespace stormguard
