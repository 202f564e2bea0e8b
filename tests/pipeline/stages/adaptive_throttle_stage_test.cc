#include "stormguard/pipeline/stages/adaptive_throttle_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/metrics_listener.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard {
namespace throttle_stage_test {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

// A backend with room for `capacity` calls a second, refusing the rest with
// RESOURCE_EXHAUSTED (a 429): offered 10x its capacity, it refuses 90%.
struct CapacityBackend {
  int capacity = 10;
  std::int64_t second = -1;
  int used = 0;
  std::int64_t received = 0;
  std::int64_t accepted = 0;

  Status Call(TimePoint now) {
    ++received;
    const std::int64_t s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    if (s != second) second = s, used = 0;
    if (used == capacity) return Status::ResourceExhausted("over capacity");
    ++used;
    ++accepted;
    return Status::Ok();
  }
};

// Retries as often as asked, at once (no backoff to move the manual clock).
RetryOptions EagerRetry(int attempts, std::shared_ptr<RetryBudget> budget = nullptr) {
  return {.max_attempts = attempts, .backoff = {.kind = BackoffKind::kConstant, .base = 0ms}, .budget = budget};
}

// `calls` calls, 100 a second, to a backend with room for 10 a second.
CapacityBackend Drive(PipelineRef& p, ManualEnv& env, int calls) {
  CapacityBackend backend;
  CallContext ctx;
  for (int i = 0; i < calls; ++i) {
    (void)p.Execute(ctx, [&](CallContext&) { return backend.Call(env.clock.Now()); });
    env.clock.Advance(10ms);
  }
  return backend;
}

std::shared_ptr<AdaptiveThrottle> Throttle(double k) { return Unwrap(AdaptiveThrottle::Create({.k = k, .seed = 11})); }

TEST(AdaptiveThrottleStageTest, ABackendRefusingNinetyPercentGetsAboutKTimesWhatItAccepts) {
  for (double k : {2.0, 1.1}) {
    ManualEnv env;
    PipelineRef p =
        Unwrap(PipelineBuilder(env.options()).AddRetry(EagerRetry(3)).AddAdaptiveThrottle(Throttle(k)).Build());
    const CapacityBackend b = Drive(p, env, 30'000);  // 300 s, over two windows
    // The backend stays busy (10 a second at most); k near 1 leaves some of it idle.
    EXPECT_GT(b.accepted, k >= 2 ? 2900 : 2000) << k;
    EXPECT_LE(static_cast<double>(b.received), k * static_cast<double>(b.accepted) * 1.1) << k;
  }
}

TEST(AdaptiveThrottleStageTest, NaiveRetriesSendSeveralTimesMore) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(EagerRetry(3)).Build());
  const CapacityBackend b = Drive(p, env, 30'000);
  EXPECT_GE(b.received, 20 * b.accepted);  // ~2.7 attempts a call, one call in ten accepted
}

// Outside in: the retry and its budget, the breaker, the throttle next to
// the call. A throttled attempt is do-not-retry, so the retry stops there;
// the breaker sees only attempts that left. The breaker leaves overload to
// the throttle: at k = 2 half of what the backend gets is refused, which
// would trip a 50% breaker counting 429s.
TEST(AdaptiveThrottleStageTest, ComposesWithTheRetryBudgetAndTheBreaker) {
  ManualEnv env;
  auto budget = Unwrap(TokenBucketBudget::Create({}));
  auto breaker =
      Unwrap(CircuitBreaker::Create({.failure_outcomes = kDefaultBreakerFailures.Without(OutcomeClass::kOverloaded)}));
  auto throttle = Throttle(2.0);
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddRetry(EagerRetry(3, budget))
                             .AddCircuitBreaker(breaker)
                             .AddAdaptiveThrottle(throttle)
                             .Build());
  const CapacityBackend b = Drive(p, env, 30'000);
  EXPECT_GT(b.accepted, 2900);
  EXPECT_LE(static_cast<double>(b.received), 2.0 * static_cast<double>(b.accepted) * 1.1);
  EXPECT_EQ(breaker->state(), CircuitState::kClosed);
  // Every attempt that left is a request; the throttled ones too.
  EXPECT_GE(throttle->Counts(env.clock.Now()).requests, b.received / 2);
}

TEST(AdaptiveThrottleStageTest, ARefusedAttemptEndsTheRetries) {
  ManualEnv env;
  auto throttle = Unwrap(AdaptiveThrottle::Create({.min_requests = 0, .seed = 3}));
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(EagerRetry(5)).AddAdaptiveThrottle(throttle).Build());
  CallContext ctx;
  int calls = 0;
  for (;;) {
    const int calls_before = calls;
    const std::int64_t requests_before = throttle->Counts(env.clock.Now()).requests;
    Status s = p.Execute(ctx, [&](CallContext&) { return ++calls, Status::ResourceExhausted("busy"); });
    if (s.source() != "adaptive_throttle") continue;
    EXPECT_TRUE(s.hints().do_not_retry);
    EXPECT_THAT(s.message(), HasSubstr("refused locally"));
    // Every attempt was a request, the refused one too, and none ran after it.
    EXPECT_EQ(throttle->Counts(env.clock.Now()).requests - requests_before, calls - calls_before + 1);
    break;
  }
}

TEST(AdaptiveThrottleStageTest, BelongsInsideTheRetryAndTakesBackWhatNeverLeft) {
  ManualEnv env;
  auto outside = PipelineBuilder(env.options()).AddAdaptiveThrottle(Throttle(2)).AddRetry(EagerRetry(3)).Build();
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(), HasSubstr("adaptive_throttle"));
  auto throttle = Throttle(2);
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options()).AddAdaptiveThrottle(throttle).AddRequireIdempotencyKey().Build());
  CallContext no_key;
  EXPECT_EQ(p.Execute(no_key, [](CallContext&) { return Status::Ok(); }).source(), "idempotency_key");
  EXPECT_EQ(throttle->Counts(env.clock.Now()).requests, 0);
}

// The asynchronous form admits, counts and takes back as the blocking one:
// two throttles with one seed, one driven each way, end with the same counts.
TEST(AdaptiveThrottleStageTest, AsyncFormDecidesAsTheBlockingOneDoes) {
  ManualEnv env;
  auto blocking = Unwrap(AdaptiveThrottle::Create({.min_requests = 0, .seed = 21}));
  auto async = Unwrap(AdaptiveThrottle::Create({.min_requests = 0, .seed = 21}));
  PipelineRef b = Unwrap(PipelineBuilder(env.options()).AddAdaptiveThrottle(blocking).Build());
  PipelineRef a = Unwrap(PipelineBuilder(env.options()).AddAdaptiveThrottle(async).Build());
  CallContext ctx;
  int b_calls = 0, a_calls = 0;
  for (int i = 0; i < 200; ++i) {
    // One in five accepted, the rest refused for overload.
    const Status answer = i % 5 == 0 ? Status::Ok() : Status::ResourceExhausted("busy");
    const Status sb = b.Execute(ctx, [&](CallContext&) { return ++b_calls, answer; });
    std::optional<Status> sa;
    a.ExecuteAsync(
        ctx, [&](CallContext&, Completion<Status> done) { ++a_calls, done(answer); }, [&](Status s) { sa = s; });
    ASSERT_TRUE(sa.has_value());
    EXPECT_EQ(sa->source(), sb.source()) << i;
    env.clock.Advance(10ms);
  }
  EXPECT_EQ(a_calls, b_calls);
  EXPECT_GT(blocking->rejected(), 0);
  EXPECT_EQ(async->rejected(), blocking->rejected());
  EXPECT_EQ(async->Counts(env.clock.Now()).requests, blocking->Counts(env.clock.Now()).requests);
  EXPECT_EQ(async->Counts(env.clock.Now()).accepts, blocking->Counts(env.clock.Now()).accepts);
}

TEST(AdaptiveThrottleStageTest, RefusalsAreCountedInTheMetrics) {
  ManualEnv env;
  MetricsListener metrics;
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&metrics.For("d")))
                             .AddAdaptiveThrottle(AdaptiveThrottleOptions{.min_requests = 0, .seed = 4})
                             .Build());
  CallContext ctx;
  int refused = 0;
  for (int i = 0; i < 50; ++i) {
    const Status s = p.Execute(ctx, [](CallContext&) { return Status::ResourceExhausted("busy"); });
    refused += s.source() == "adaptive_throttle" ? 1 : 0;
  }
  ASSERT_GT(refused, 0);
  EXPECT_THAT(metrics.Scrape(), HasSubstr("stormguard_rejected_calls_total{name=\"d\",policy=\"adaptive_throttle\"} " +
                                          std::to_string(refused) + "\n"));
}

}  // namespace throttle_stage_test
}  // namespace stormguard
