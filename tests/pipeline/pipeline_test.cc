#include "stormguard/pipeline/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::CountingClock;
using testkit::ManualEnv;
using testkit::RecordingStage;
using testkit::Unwrap;

RetryOptions FixedRetry(int attempts) {
  return RetryOptions{.max_attempts = attempts,
                      .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                      .idempotent = true};
}

TEST(PipelineTest, FirstAddedStageIsOutermost) {
  ManualEnv env;
  std::vector<std::string> log;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .Add(std::make_shared<RecordingStage>("a", log))
                             .Add(std::make_shared<RecordingStage>("b", log))
                             .Add(std::make_shared<RecordingStage>("c", log))
                             .Build());
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext&) {
    log.push_back("call");
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok());
  EXPECT_THAT(log, ElementsAre("a>", "b>", "c>", "call", "<c", "<b", "<a"));
}

TEST(PipelineTest, StagesInsideRetryRunOncePerAttempt) {
  ManualEnv env;
  std::vector<std::string> log;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .Add(std::make_shared<RecordingStage>("outer", log))
                             .AddRetry(FixedRetry(3))
                             .Add(std::make_shared<RecordingStage>("inner", log))
                             .Build());
  CallContext ctx;
  int calls = 0;
  Status s = p.Execute(ctx, [&](CallContext&) { return ++calls < 3 ? Status::Unavailable("x") : Status::Ok(); });
  EXPECT_TRUE(s.ok());
  EXPECT_THAT(log, ElementsAre("outer>", "inner>", "<inner", "inner>", "<inner", "inner>", "<inner", "<outer"));
}

TEST(PipelineTest, DescribeListsStagesOutsideIn) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddFallback({.skip_when_remaining_below = 20ms})
                             .AddTimeout(1s)
                             .AddRetry(FixedRetry(3))
                             .AddAttemptTimeout(250ms)
                             .Build());
  EXPECT_EQ(p.Describe(),
            "fallback(skip below 20ms) -> timeout(1s) -> retry(3 attempts) -> attempt_timeout(250ms) -> call");
  EXPECT_EQ(p->size(), 4u);
  EXPECT_EQ(p->stage(1).placement().kind, "timeout");
  EXPECT_EQ(p->stage(3).placement().kind, "attempt_timeout");
}

TEST(PipelineTest, ResultValueReachesTheCallerAcrossRetries) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(FixedRetry(3)).Build());
  CallContext ctx;
  Result<std::string> r = p.Execute(ctx, [](CallContext& c) -> Result<std::string> {
    if (c.attempt == 1) return Status::Unavailable("first try fails");
    return std::string("attempt ") + std::to_string(c.attempt);
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "attempt 2");
}

TEST(PipelineTest, EmptyPipelineJustCalls) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).Build());
  CallContext ctx;
  Result<int> r = p.Execute(ctx, [](CallContext&) -> Result<int> { return 7; });
  EXPECT_EQ(r.value(), 7);
  EXPECT_EQ(p.Describe(), "call");
}

TEST(PipelineTest, ExceptionsFromTheCallableAreClassified) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(FixedRetry(3)).Build());
  CallContext ctx;
  int calls = 0;
  Status s = p.Execute(ctx, [&](CallContext&) -> Status {
    ++calls;
    throw std::invalid_argument("bad input");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(calls, 1);  // a logic error is permanent: never retried
}

TEST(PipelineTest, RejectionNamesThePolicyThatRefused) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).AddRequireIdempotencyKey().Build());
  CallContext no_key;
  Status s = p.Execute(no_key, [](CallContext&) { return Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.source(), "idempotency_key");

  CallContext expired{.deadline = Deadline::At(env.clock.Now() - 1ms), .idempotency_key = "k"};
  bool called = false;
  s = p.Execute(expired, [&](CallContext&) {
    called = true;
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "timeout");
  EXPECT_FALSE(called);
}

TEST(PipelineTest, BuildRejectsOrderingMistakesNamingTheStage) {
  ManualEnv env;
  auto two_timeouts = PipelineBuilder(env.options()).AddTimeout(1s).AddTimeout(2s).Build();
  ASSERT_FALSE(two_timeouts.ok());
  EXPECT_THAT(two_timeouts.status().message(),
              HasSubstr("stages[1] (timeout): a second timeout stage (the first is stages[0])"));

  auto attempt_outside = PipelineBuilder(env.options()).AddAttemptTimeout(1s).AddRetry(FixedRetry(2)).Build();
  ASSERT_FALSE(attempt_outside.ok());
  EXPECT_THAT(attempt_outside.status().message(), HasSubstr("stages[0] (attempt_timeout): outside retry (stages[1])"));

  auto overall_inside = PipelineBuilder(env.options()).AddRetry(FixedRetry(2)).AddTimeout(1s).Build();
  ASSERT_FALSE(overall_inside.ok());
  EXPECT_THAT(overall_inside.status().message(), HasSubstr("stages[1] (timeout): inside retry (stages[0])"));

  auto fallback_inside = PipelineBuilder(env.options()).AddRetry(FixedRetry(2)).AddFallback().Build();
  ASSERT_FALSE(fallback_inside.ok());
  EXPECT_THAT(fallback_inside.status().message(), HasSubstr("stages[1] (fallback): inside retry"));
}

TEST(PipelineTest, BuildReportsEveryInvalidOptionWithItsStage) {
  ManualEnv env;
  auto r = PipelineBuilder(env.options()).AddTimeout(0s).AddRetry({.max_attempts = 0}).Add(nullptr).Build();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("stages[0] (timeout): timeout: must be positive"));
  EXPECT_THAT(r.status().message(), HasSubstr("stages[1] (retry): max_attempts: must be at least 1"));
  EXPECT_THAT(r.status().message(), HasSubstr("stages[2]: must not be null"));
}

TEST(PipelineTest, ListenerHearsEveryAttemptRetryAndGiveUp) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters)).AddRetry(FixedRetry(3)).Build());
  CallContext ctx;
  Status s = p.Execute(ctx, [](CallContext&) { return Status::Unavailable("down"); });
  EXPECT_FALSE(s.ok());
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kAttemptStarted), 3u);
  EXPECT_EQ(snap.count(EventKind::kAttemptEnded, PolicyId::kRetry), 3u);
  EXPECT_EQ(snap.count(EventKind::kRetryScheduled, PolicyId::kRetry), 2u);
  EXPECT_EQ(snap.count(EventKind::kGaveUp, PolicyId::kRetry, "attempts_exhausted"), 1u);
}

TEST(PipelineTest, WithoutRetryTheCallReportsItsOwnAttemptEnd) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters)).AddTimeout(1s).Build());
  CallContext ctx;
  EXPECT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kAttemptStarted, PolicyId::kPipeline), 1u);
  EXPECT_EQ(snap.count(EventKind::kAttemptEnded, PolicyId::kPipeline), 1u);
}

TEST(PipelineTest, ManyThreadsShareOnePipeline) {
  ManualEnv env;  // retry waits move the manual clock; nothing sleeps
  CountingListener counters;
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters))
                             .AddTimeout(10s)
                             .AddRetry({.max_attempts = 2,
                                        .backoff = {.kind = BackoffKind::kConstant, .base = 1us, .cap = 1us},
                                        .idempotent = true})
                             .AddAttemptTimeout(5s)
                             .Build());
  constexpr int kThreads = 4, kCalls = 2000;
  std::atomic<int> ok{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kCalls; ++i) {
          CallContext ctx;
          // Every other call fails once, then succeeds on its retry.
          Result<int> r = p.Execute(ctx, [&](CallContext& c) -> Result<int> {
            if (i % 2 == 1 && c.attempt == 1) return Status::Unavailable("blip");
            return t * kCalls + i;
          });
          if (r.ok() && *r == t * kCalls + i) ++ok;
        }
      });
    }
  }
  EXPECT_EQ(ok, kThreads * kCalls);
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kAttemptStarted), kThreads * kCalls * 3u / 2u);
  EXPECT_EQ(snap.count(EventKind::kRetryScheduled, PolicyId::kRetry), kThreads * kCalls / 2u);
  EXPECT_EQ(snap.count(EventKind::kTimedOut), 0u);
}

TEST(PipelineTest, ASuccessfulPassReadsEachClockOnce) {
  CountingClock clock;
  auto timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  auto budget = Unwrap(TokenBucketBudget::Create({}));
  // The timeout reads the precise time on the way in; on the way out the
  // breaker (slow-call timing) and the retry budget share one coarse reading.
  PipelineRef p = Unwrap(PipelineBuilder({.clock = &clock, .timers = timers.get()})
                             .AddTimeout(1s)
                             .AddRetry({.max_attempts = 3, .budget = budget})
                             .AddCircuitBreaker(CircuitBreakerOptions{})
                             .Build());
  CallContext ctx;
  ASSERT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
  EXPECT_EQ(clock.precise, 1);
  EXPECT_EQ(clock.coarse, 1);
}

}  // namespace
}  // namespace stormguard
