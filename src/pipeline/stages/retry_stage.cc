#include "stormguard/pipeline/stages/retry_stage.h"

#include "stormguard/retry/retry_driver.h"

namespace stormguard {
namespace {

// The pipeline's clock, except that the coarse time the retry driver gives
// its budget comes from the pass's shared reading when there is one (the
// overall timeout took it a moment ago): one clock read less per call.
class PassClock final : public Clock {
 public:
  PassClock(Clock& base, Next next) noexcept : base_(base), next_(next) {}
  TimePoint Now() const noexcept override { return base_.Now(); }
  TimePoint CoarseNow() const noexcept override { return next_.CheapNow(); }
  bool SleepUntil(TimePoint t, std::stop_token stop) override { return base_.SleepUntil(t, std::move(stop)); }

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
  bool retrying = false;
  PassClock clock(clock_, next);
  return ExecuteWithRetry(
      policy_, ctx,
      [next, &retrying](CallContext& attempt) {
        if (retrying) next.ForgetNow();  // a retry follows a backoff wait
        retrying = true;
        return next(attempt);
      },
      clock, ThreadLocalRandom());
}

}  // namespace stormguard
