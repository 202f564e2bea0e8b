// The per-attempt timeout with TimeoutOptions::adaptive, under both drivers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/core/duration_format.h"
#include "stormguard/pipeline/stages/timeout_stage.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

struct Adaptive {
  std::shared_ptr<LatencyTracker> tracker =
      LatencyTracker::Create({.window = 10s, .slices = 5, .min_samples = 1}).value();
  std::shared_ptr<AdaptiveTimeout> timeout = AdaptiveTimeout::Create({.latency = tracker,
                                                                      .quantile = 1.0,
                                                                      .factor = 2,
                                                                      .min = 1ms,
                                                                      .max = 1s,
                                                                      .warmup = 100ms,
                                                                      .refresh = Duration::zero()})
                                                 .value();
};

PipelineRef Build(ManualEnv& env, const Adaptive& a) {
  return Unwrap(
      PipelineBuilder(env.options())
          .AddRetry({.max_attempts = 2, .backoff = {.base = 1ms, .jitter = Jitter::kNone}, .idempotent = true})
          .AddAttemptTimeout({.adaptive = a.timeout})
          .Build());
}

// The upper edge of the tracker's bucket for `d`: what a quantile reports.
Duration Edge(Duration d) { return LatencyTracker::BucketUpperEdge(LatencyTracker::BucketOf(d)); }

TEST(AdaptiveTimeoutStageTest, EachAttemptGetsTheLiveTimeoutAndIsRecorded) {
  ManualEnv env;
  Adaptive a;
  PipelineRef p = Build(env, a);
  std::vector<Duration> given;
  auto answer_in_10ms = [&](CallContext& c) {
    given.push_back(c.deadline.Remaining(env.clock.Now()));
    env.AdvanceAndFire(10ms);
    return Status::Ok();
  };
  CallContext first;
  EXPECT_TRUE(p.Execute(first, answer_in_10ms).ok());
  CallContext second;
  EXPECT_TRUE(p.Execute(second, answer_in_10ms).ok());
  ASSERT_EQ(given.size(), 2u);
  EXPECT_EQ(given[0], 100ms);           // warm-up: no samples yet
  EXPECT_EQ(given[1], 2 * Edge(10ms));  // 2 x the 10 ms the first one took
  EXPECT_EQ(a.tracker->Count(env.clock.Now()), 2);
  EXPECT_THAT(p.Describe(), HasSubstr("attempt_timeout(adaptive q1 x2 in [1ms, 1s])"));
}

// Every attempt times out: each is recorded as its timeout, so the retry
// runs under twice the first one's.
TEST(AdaptiveTimeoutStageTest, CutOffAttemptsAreRecordedAsTheirTimeout) {
  ManualEnv env;
  Adaptive a;
  PipelineRef p = Build(env, a);
  std::vector<Duration> given;
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext& c) {
    given.push_back(c.deadline.Remaining(env.clock.Now()));
    env.AdvanceAndFire(c.deadline.Remaining(env.clock.Now()));
    return c.stop.stop_requested() ? Status::Cancelled("stopped") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(), HasSubstr("timeout " + FormatDuration(given.back())));
  ASSERT_EQ(given.size(), 2u);
  EXPECT_EQ(given[0], 100ms);
  EXPECT_EQ(given[1], 2 * Edge(100ms));
  EXPECT_GE(a.tracker->Quantile(1.0, env.clock.Now()).value(), 2 * Edge(100ms));
}

// Cut off by the caller's own deadline, the attempt says nothing about how
// long the destination takes beyond that: it is not recorded.
TEST(AdaptiveTimeoutStageTest, NeverBeyondTheCallersDeadlineAndSuchCutsAreNotRecorded) {
  ManualEnv env;
  Adaptive a;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddAttemptTimeout({.adaptive = a.timeout}).Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 30ms)};
  Status s = p.Execute(ctx, [&](CallContext& c) {
    EXPECT_EQ(c.deadline, ctx.deadline);
    env.AdvanceAndFire(30ms);
    return Status::Cancelled("stopped");
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(a.tracker->Count(env.clock.Now()), 0);
}

TEST(AdaptiveTimeoutStageTest, OnlyThePerAttemptTimeoutAdapts) {
  ManualEnv env;
  Adaptive a;
  auto built = PipelineBuilder(env.options()).AddTimeout({.adaptive = a.timeout}).Build();
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.status().message(), HasSubstr("adaptive: only a per-attempt timeout follows latency"));
}

// The asynchronous driver: the attempt reports through `done`, later.
struct Pending {
  std::optional<Completion<Status>> done;
  std::vector<Duration> given;
};

TEST(AdaptiveTimeoutStageTest, AsyncAttemptsGetTheLiveTimeoutAndAreRecorded) {
  ManualEnv env;
  Adaptive a;
  PipelineRef p = Build(env, a);
  ASSERT_TRUE(p.AsyncSupport().ok());
  Pending pending;
  auto attempt = [&](CallContext& c, Completion<Status> done) {
    pending.given.push_back(c.deadline.Remaining(env.clock.Now()));
    pending.done.emplace(std::move(done));
  };
  for (int i = 0; i < 2; ++i) {
    std::optional<Status> got;
    CallContext ctx;
    p.ExecuteAsync(ctx, attempt, [&](Status s) { got = s; });
    env.AdvanceAndFire(10ms);
    std::exchange(pending.done, std::nullopt).value()(Status::Ok());
    ASSERT_TRUE(got.has_value() && got->ok());
  }
  ASSERT_EQ(pending.given.size(), 2u);
  EXPECT_EQ(pending.given[0], 100ms);
  EXPECT_EQ(pending.given[1], 2 * Edge(10ms));
  EXPECT_EQ(a.tracker->Count(env.clock.Now()), 2);
}

TEST(AdaptiveTimeoutStageTest, AsyncCutOffAttemptsAreRecordedAsTheirTimeout) {
  ManualEnv env;
  Adaptive a;
  PipelineRef p = Build(env, a);
  Pending pending;
  auto attempt = [&](CallContext& c, Completion<Status> done) {
    pending.given.push_back(c.deadline.Remaining(env.clock.Now()));
    pending.done.emplace(std::move(done));
  };
  std::optional<Status> got;
  CallContext ctx;
  p.ExecuteAsync(ctx, attempt, [&](Status s) { got = s; });
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(pending.given.size(), static_cast<std::size_t>(i + 1));
    env.AdvanceAndFire(pending.given.back());  // the timer stops the attempt
    std::exchange(pending.done, std::nullopt).value()(Status::Cancelled("stopped"));
    env.AdvanceAndFire(1ms);  // the retry's backoff
  }
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(pending.given[0], 100ms);
  EXPECT_EQ(pending.given[1], 2 * Edge(100ms));
  EXPECT_GE(a.tracker->Quantile(1.0, env.clock.Now()).value(), 2 * Edge(100ms));
}

TEST(AdaptiveTimeoutStageTest, AsyncCutsByTheCallersDeadlineAreNotRecorded) {
  ManualEnv env;
  Adaptive a;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddAttemptTimeout({.adaptive = a.timeout}).Build());
  Pending pending;
  std::optional<Status> got;
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 30ms)};
  p.ExecuteAsync(
      ctx,
      [&](CallContext& c, Completion<Status> done) {
        pending.given.push_back(c.deadline.Remaining(env.clock.Now()));
        pending.done.emplace(std::move(done));
      },
      [&](Status s) { got = s; });
  env.AdvanceAndFire(30ms);
  std::exchange(pending.done, std::nullopt).value()(Status::Cancelled("stopped"));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(pending.given, std::vector<Duration>{30ms});
  EXPECT_EQ(a.tracker->Count(env.clock.Now()), 0);
}

}  // namespace
}  // namespace stormguard
