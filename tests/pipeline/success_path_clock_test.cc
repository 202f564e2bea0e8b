// The clock reads of a successful call through the pipeline that
// BM_Pipeline_Success measures: a precise read costs about as much as the
// rest of a stage, so each one that comes back shows up here first.
// BM_Pipeline_Success_Metrics_ClockReads counts the same reads on the real
// clock (issue 31: at most 3.0 per call; the metrics pipeline reads 2.0625).
#include <gtest/gtest.h>

#include <optional>
#include <thread>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/metrics/metrics_listener.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::CountingClock;
using testkit::Unwrap;

struct FullPipeline {
  explicit FullPipeline(Listener* to = nullptr) : listener(to) {}

  Listener* listener;
  CountingClock clock;
  std::shared_ptr<TimerService> timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  PipelineRef pipeline = Unwrap(PipelineBuilder({.clock = &clock, .timers = timers.get(), .listener = listener})
                                    .AddTimeout(1s)
                                    .AddRetry({.max_attempts = 3, .budget = Unwrap(TokenBucketBudget::Create({}))})
                                    .AddCircuitBreaker(CircuitBreakerOptions{})
                                    .AddBulkhead({.max_concurrent = 1000})
                                    .AddRateLimiter({.rate = 1e9, .burst = 1'000'000'000})
                                    .Build());
};

// On the way in the timeout reads the precise time once and every stage
// shares it (the retry budget, the breaker's start, the bulkhead, the rate
// limiter); on the way out the breaker reads the coarse clock once for the
// call's end, and the retry budget shares that reading.
TEST(SuccessPathClockTest, TheFullPipelineReadsEachClockOncePerCall) {
  FullPipeline p;
  CallContext ctx;
  for (int call = 1; call <= 3; ++call) {
    ASSERT_TRUE(p.pipeline.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
    EXPECT_EQ(p.clock.precise, call);
    EXPECT_EQ(p.clock.coarse, call);
  }
}

// A listener that times every attempt (CountingListener) costs one precise
// read more, right after the call: the retry times the attempt from the
// timeout's reading to that one, and the breaker and the budget take it
// instead of the coarse clock.
TEST(SuccessPathClockTest, AnExactListenerAddsOnePreciseReadAndSavesTheCoarseOne) {
  CountingListener counting;
  FullPipeline p(&counting);
  CallContext ctx;
  for (int call = 1; call <= 3; ++call) {
    ASSERT_TRUE(p.pipeline.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
    EXPECT_EQ(p.clock.precise, 2 * call);
    EXPECT_EQ(p.clock.coarse, 0);
  }
}

// Metrics sample fast attempts (AttemptTiming::kSampled): after a fast call
// the breaker's coarse reading is shared with the retry, and the precise
// clock is read again for 1 call in 16 only. On a fresh thread whose
// sampling countdown starts full.
TEST(SuccessPathClockTest, MetricsReadThePreciseClockAgainForOneFastCallInSixteen) {
  std::thread([] {
    core_internal::SetAttemptPhase(kAttemptSampleEvery - 1);
    MetricsListener metrics;
    FullPipeline p(&metrics.For("payments"));
    CallContext ctx;
    for (int call = 1; call <= 32; ++call) {
      ASSERT_TRUE(p.pipeline.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
      EXPECT_EQ(p.clock.precise, call + call / 16) << call;
      EXPECT_EQ(p.clock.coarse, call) << call;
    }
    EXPECT_NE(metrics.Scrape().find("stormguard_attempts_total{name=\"payments\",outcome=\"success\"} 32"),
              std::string::npos)
        << metrics.Scrape();
  }).join();
}

// A Result<T> call takes the same path: its value goes to a slot, not
// through the stages.
TEST(SuccessPathClockTest, AValueCallReadsNoMoreThanAStatusCall) {
  FullPipeline p;
  CallContext ctx;
  Result<int> r = p.pipeline.Execute(ctx, [](CallContext&) -> Result<int> { return 7; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  EXPECT_EQ(p.clock.precise, 1);
  EXPECT_EQ(p.clock.coarse, 1);
}

// The asynchronous form shares one reading on the way in too: the timeout
// reads the time, the bulkhead and the rate limiter take it.
TEST(SuccessPathClockTest, TheAsynchronousFormReadsThePreciseClockOncePerCall) {
  FullPipeline p;
  CallContext ctx;
  for (int call = 1; call <= 3; ++call) {
    std::optional<Status> got;
    p.pipeline.ExecuteAsync(
        ctx, [](CallContext&, Completion<Status> done) { done(Status::Ok()); }, [&](Status s) { got = std::move(s); });
    ASSERT_TRUE(got.has_value() && got->ok());
    EXPECT_EQ(p.clock.precise, call);
  }
}

}  // namespace
}  // namespace stormguard
