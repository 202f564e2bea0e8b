// stormguard/pipeline/stages/guard_stages.h: breaker, bulkhead, limiters as stages.
//
// Each stage asks its guard before every attempt and refuses with the
// guard's own status (source "circuit_breaker", "bulkhead", "rate_limiter"
// or "adaptive_concurrency"; class kOverloaded), so a retry outside backs
// off within its budget (an open breaker's pushback is its remaining wait,
// which usually exceeds the deadline: the retry stops at once) and a
// fallback outside can answer instead:
//
//   builder.AddRetry({...}).AddCircuitBreaker(breaker).AddBulkhead(bulkhead);
//
// - CircuitBreakerStage records every attempt that reached the callable
//   (outcome by the pipeline's classifier, latency for the slow-call rate)
//   and gives the permit back for one refused further in. When the
//   breaker's slow_call_duration is 500ms or more (default 2s), latency
//   is measured with Next::CheapNow() (a few ms of error, no clock read of
//   its own); below that, precisely.
// - BulkheadStage holds its slot until the rest of the pipeline returns.
//   The stage blocks until the callable returns, however late, so a slot
//   whose attempt timed out but keeps running stays taken until that work
//   really ends (issue 3: abandoned work holds its slot).
// - RateLimiterStage spends a token per attempt and gives it back when the
//   attempt was refused further in and never reached the callable.
// - AdaptiveConcurrencyStage samples the round-trip time of attempts that
//   reached the callable: success -> OnSuccess; overloaded, ambiguous (a
//   timeout) or deadline exceeded -> OnDropped (the limit backs off);
//   anything else, or no call at all -> OnIgnore.
// With max_wait > 0 (bulkhead, limiter) the stage waits on the pipeline's
// clock and ends the wait when ctx.stop fires.
//
// Thread safety: immutable stages around thread-safe guards; a guard may be
// shared by several pipelines. Time comes from Next::Now() (one clock read
// shared by the stages of a pass).
#pragma once

#include <memory>

#include "stormguard/core/classifier.h"
#include "stormguard/guard/adaptive_concurrency.h"
#include "stormguard/guard/bulkhead.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/guard/rate_limiter.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard {

class CircuitBreakerStage final : public Stage {
 public:
  CircuitBreakerStage(std::shared_ptr<CircuitBreaker> breaker, const Classifier& classifier) noexcept;
  StageKind kind() const noexcept override { return StageKind::kCircuitBreaker; }
  std::string_view name() const noexcept override { return kCircuitBreakerPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const CircuitBreaker& breaker() const noexcept { return *breaker_; }

 private:
  TimePoint Time(Next next) const noexcept { return coarse_ ? next.CheapNow() : next.Now(); }

  std::shared_ptr<CircuitBreaker> breaker_;
  const Classifier& classifier_;
  bool coarse_;
};

class BulkheadStage final : public Stage {
 public:
  BulkheadStage(std::shared_ptr<Bulkhead> bulkhead, Clock& clock) noexcept
      : bulkhead_(std::move(bulkhead)), clock_(clock) {}
  StageKind kind() const noexcept override { return StageKind::kBulkhead; }
  std::string_view name() const noexcept override { return Bulkhead::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const Bulkhead& bulkhead() const noexcept { return *bulkhead_; }

 private:
  std::shared_ptr<Bulkhead> bulkhead_;
  Clock& clock_;
};

class RateLimiterStage final : public Stage {
 public:
  RateLimiterStage(std::shared_ptr<RateLimiter> limiter, Clock& clock) noexcept
      : limiter_(std::move(limiter)), clock_(clock) {}
  StageKind kind() const noexcept override { return StageKind::kRateLimiter; }
  std::string_view name() const noexcept override { return RateLimiter::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const RateLimiter& limiter() const noexcept { return *limiter_; }

 private:
  std::shared_ptr<RateLimiter> limiter_;
  Clock& clock_;
};

class AdaptiveConcurrencyStage final : public Stage {
 public:
  AdaptiveConcurrencyStage(std::shared_ptr<AdaptiveLimiter> limiter, const Classifier& classifier) noexcept
      : limiter_(std::move(limiter)), classifier_(classifier) {}
  StageKind kind() const noexcept override { return StageKind::kAdaptiveConcurrency; }
  std::string_view name() const noexcept override { return AdaptiveLimiter::kPolicy; }
  std::string Describe() const override;
  Status Execute(CallContext& ctx, Next next) const override;
  const AdaptiveLimiter& limiter() const noexcept { return *limiter_; }

 private:
  std::shared_ptr<AdaptiveLimiter> limiter_;
  const Classifier& classifier_;
};

}  // namespace stormguard
