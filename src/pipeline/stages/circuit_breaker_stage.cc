#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace stormguard {

CircuitBreakerStage::CircuitBreakerStage(std::shared_ptr<CircuitBreaker> breaker,
                                         const Classifier& classifier) noexcept
    : breaker_(std::move(breaker)),
      classifier_(classifier),
      coarse_(breaker_->options().slow_call_duration >= std::chrono::milliseconds(500)) {}

std::string CircuitBreakerStage::Describe() const {
  const CircuitBreakerOptions& o = breaker_->options();
  return "circuit_breaker(" + std::to_string(std::lround(o.failure_rate_threshold * 100)) + "% of " +
         std::to_string(o.window_size) + (o.window_kind == WindowKind::kCountBased ? " calls" : "s") + ")";
}

Status CircuitBreakerStage::Execute(CallContext& ctx, Next next) const {
  const TimePoint start = Time(next);
  Status admitted = breaker_->Acquire(start);
  if (!admitted.ok()) return admitted;
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  if (next.calls() == before) {  // refused further in: the dependency was never asked
    breaker_->ReleasePermission();
    return s;
  }
  const TimePoint end = Time(next);
  breaker_->OnResult(classifier_.Classify(s), std::max(end - start, Duration::zero()), end);
  return s;
}

}  // namespace stormguard
