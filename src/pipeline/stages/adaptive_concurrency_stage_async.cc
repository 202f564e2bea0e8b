// The adaptive concurrency stage's asynchronous form: a token per attempt,
// its round trip sampled when the attempt ends, both read from the pass's
// time as the blocking form does (AsyncStep::Now, Next::Now).
#include "stormguard/pipeline/stages/adaptive_concurrency_stage.h"

namespace stormguard {
namespace {

struct LimiterState {
  AdaptiveLimiter::Token token;
  std::uint32_t calls_before = 0;
};

}  // namespace

AsyncStateLayout AdaptiveConcurrencyStage::async_state() const noexcept { return AsyncStateLayout::Of<LimiterState>(); }

void AdaptiveConcurrencyStage::Start(AsyncStep step) const {
  Result<AdaptiveLimiter::Token> token = limiter_->TryAcquire(step.Now());
  if (!token.ok()) return step.Finish(std::move(token).status());
  LimiterState& st = step.state<LimiterState>();
  st.token = std::move(token).value();
  st.calls_before = step.calls();
  step.RunInner();
}

void AdaptiveConcurrencyStage::Resume(AsyncStep step, Status inner) const {
  LimiterState& st = step.state<LimiterState>();
  {
    AdaptiveLimiter::Token token = std::move(st.token);  // settled before the call can end
    if (step.calls() != st.calls_before) Sample(token, inner, step.Now());
  }
  step.Finish(std::move(inner));
}

}  // namespace stormguard
