// One factory shape: shared, stateful components come as
// Result<std::shared_ptr<T>>, value policies as Result<T>. Checked at compile
// time; a factory that drifts from its shape breaks this file's build.
#include <gtest/gtest.h>

#include <memory>
#include <type_traits>

#include "stormguard/backoff/backoff.h"
#include "stormguard/core/rolling_counter.h"
#include "stormguard/guard/adaptive_concurrency.h"
#include "stormguard/guard/bulkhead.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/guard/limit_algorithm.h"
#include "stormguard/guard/rate_limiter.h"
#include "stormguard/hedge/hedge_policy.h"
#include "stormguard/hedge/latency_tracker.h"
#include "stormguard/retry/budgets.h"
#include "stormguard/retry/retry_policy.h"

namespace stormguard {
namespace {

template <class T, class Options>
constexpr bool kShared = std::is_same_v<decltype(T::Create(std::declval<Options>())), Result<std::shared_ptr<T>>>;
template <class T, class Options>
constexpr bool kValue = std::is_same_v<decltype(T::Create(std::declval<Options>())), Result<T>>;

static_assert(kShared<CircuitBreaker, CircuitBreakerOptions>);
static_assert(kShared<Bulkhead, BulkheadOptions>);
static_assert(kShared<RateLimiter, RateLimiterOptions>);
static_assert(kShared<AdaptiveLimiter, AdaptiveLimiterOptions>);
static_assert(kShared<LatencyTracker, LatencyTrackerOptions>);
static_assert(kShared<TokenBucketBudget, TokenBucketBudgetOptions>);
static_assert(kShared<GrpcThrottleBudget, GrpcThrottleBudgetOptions>);
static_assert(kShared<RatioBudget, RatioBudgetOptions>);
static_assert(kShared<ConcurrencyBudget, ConcurrencyBudgetOptions>);
static_assert(kShared<FailureRateGate, FailureRateGateOptions>);

static_assert(kValue<RetryPolicy, RetryOptions>);
static_assert(kValue<HedgePolicy, HedgeOptions>);
static_assert(kValue<Backoff, BackoffOptions>);
static_assert(kValue<AimdLimit, AimdLimitOptions>);
static_assert(kValue<GradientLimit, GradientLimitOptions>);
static_assert(kValue<RollingCounter, RollingCounterOptions>);

TEST(FactoryShapeTest, SharedComponentsComeAsSharedPointers) {
  auto breaker = CircuitBreaker::Create({});
  ASSERT_TRUE(breaker.ok());
  std::shared_ptr<CircuitBreaker> second = *breaker;  // a copy shares the one breaker
  EXPECT_EQ(second.get(), breaker->get());
}

}  // namespace
}  // namespace stormguard
