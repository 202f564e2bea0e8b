#include "stormguard/pipeline/stages/retry_stage.h"

#include "stormguard/retry/retry_driver.h"

namespace stormguard {
namespace {

// The pipeline's clock as the pass shares it: an attempt's start is the
// reading the stages outside took a moment ago, its end the one taken after
// the call (by the pipeline when it has a listener), and the budget's coarse
// time either of those. So timing attempts for a listener costs no clock
// read of its own. A backoff wait drops the pass's reading.
class PassClock final : public Clock {
 public:
  PassClock(Clock& base, Next next) noexcept : base_(base), next_(next) {}
  TimePoint Now() const noexcept override { return next_.Now(); }
  TimePoint CoarseNow() const noexcept override { return next_.CheapNow(); }
  bool SleepUntil(TimePoint t, std::stop_token stop) override {
    const bool slept = base_.SleepUntil(t, std::move(stop));
    next_.ForgetNow();
    return slept;
  }

 private:
  Clock& base_;
  Next next_;
};

}  // namespace

std::string RetryStage::Describe() const {
  const RetryOptions& o = policy_.options();
  std::string s = "retry(" + std::to_string(o.max_attempts) + " attempts";
  if (o.budget != nullptr) s += ", budget " + std::string(o.budget->name());
  return s + ")";
}

// Flattened: every pipeline call passes here, and GCC's size heuristics alone
// leave the retry driver as a separate call (~40 instructions a pass).
[[gnu::flatten]] Status RetryStage::Execute(CallContext& ctx, Next next) const {
  PassClock clock(clock_, next);
  return ExecuteWithRetry(policy_, ctx, next, clock, ThreadLocalRandom());
}

}  // namespace stormguard
