// Every Add* that takes options accepts a braced list without the options
// type spelled out: the shared-guard overloads never compete for it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

TEST(PipelineBuilderBracedTest, EveryOptionsOverloadTakesADesignatedList) {
  testkit::ManualEnv env;
  Result<PipelineRef> p = PipelineBuilder(env.options())
                              .AddFallback({.skip_when_remaining_below = 20ms})
                              .AddRetry({.max_attempts = 3})
                              .AddCircuitBreaker({.window_size = 20, .minimum_number_of_calls = 10})
                              .AddBulkhead({.max_concurrent = 4})
                              .AddRateLimiter({.rate = 100, .burst = 10})
                              .AddAdaptiveConcurrency({.algorithm = LimitKind::kGradient})
                              .Build();
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ((*p)->size(), 6u);
  EXPECT_THAT(p->Describe(), ::testing::HasSubstr("circuit_breaker(50% of 20 calls) -> bulkhead(4)"));
}

TEST(PipelineBuilderBracedTest, EmptyBracesMeanTheDefaultOptions) {
  testkit::ManualEnv env;
  Result<PipelineRef> p = PipelineBuilder(env.options())
                              .AddFallback({})
                              .AddRetry({})
                              .AddCircuitBreaker({})
                              .AddBulkhead({})
                              .AddAdaptiveConcurrency({})
                              .Build();
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_THAT(p->Describe(), ::testing::HasSubstr("circuit_breaker(50% of 100 calls) -> bulkhead(25)"));
}

// The shared forms still take the guard a factory made, and only that.
TEST(PipelineBuilderBracedTest, SharedGuardsStillTakeTheFactoryResult) {
  testkit::ManualEnv env;
  std::shared_ptr<CircuitBreaker> breaker = CircuitBreaker::Create({}).value();
  Result<PipelineRef> p = PipelineBuilder(env.options())
                              .AddCircuitBreaker(breaker)
                              .AddBulkhead(Bulkhead::Create({.max_concurrent = 2}).value())
                              .AddRateLimiter(RateLimiter::Create({.rate = 5, .burst = 1}).value())
                              .AddAdaptiveConcurrency(AdaptiveLimiter::Create({}).value())
                              .Build();
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ((*p)->size(), 4u);
  EXPECT_EQ(breaker.use_count(), 2);  // held by the caller and by the stage
}

}  // namespace
}  // namespace stormguard
