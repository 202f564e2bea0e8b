#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

#include <cmath>
#include <string>

namespace stormguard {

CircuitBreakerStage::CircuitBreakerStage(std::shared_ptr<CircuitBreaker> breaker, const Classifier& classifier) noexcept
    : breaker_(std::move(breaker)),
      classifier_(classifier),
      coarse_(breaker_->options().slow_call_duration >= std::chrono::milliseconds(500)) {}

std::string CircuitBreakerStage::Describe() const {
  const CircuitBreakerOptions& o = breaker_->options();
  return "circuit_breaker(" + std::to_string(std::lround(o.failure_rate_threshold * 100)) + "% of " +
         std::to_string(o.window_size) + (o.window_kind == WindowKind::kCountBased ? " calls" : "s") + ")";
}

// Inlined into Execute, where it is the one prvalue a success returns.
[[gnu::always_inline]] inline Status CircuitBreakerStage::Attempt(CallContext& ctx, Next next, TimePoint start) const {
  const std::uint32_t before = next.calls();
  Status s = next(ctx);
  const bool reached = next.calls() != before;  // else refused further in: the dependency was never asked
  Record(reached, s, start, reached ? Time(next) : start);
  return s;
}

// The success path builds no Status of its own: a closed breaker admits
// without asking (no Status to make and move), and Attempt's one named
// result is the caller's.
Status CircuitBreakerStage::Execute(CallContext& ctx, Next next) const {
  const TimePoint start = Time(next);
  if (!breaker_->PermitsEveryCall()) [[unlikely]] {
    Status admitted = breaker_->Acquire(start);
    if (!admitted.ok()) return admitted;
  }
  return Attempt(ctx, next, start);
}

}  // namespace stormguard
