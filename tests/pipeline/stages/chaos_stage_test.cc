// The chaos stage under both drivers: what each kind does to a call, that
// an injected delay never outlasts the call's stop or deadline, where the
// builder lets it sit, and the metric its injections feed.
#include "stormguard/pipeline/stages/chaos_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <thread>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

std::shared_ptr<ChaosPolicy> Chaos(ChaosOptions o) {
  o.seed = 11;
  return Unwrap(ChaosPolicy::Create(std::move(o)));
}

std::shared_ptr<ChaosPolicy> Latency(Duration d) {
  return Chaos({.kind = ChaosKind::kLatency, .rate = 1.0, .latency = d});
}

RetryOptions ThreeAttempts() { return {.max_attempts = 3, .backoff = {.base = 10ms, .jitter = Jitter::kNone}}; }

TEST(ChaosStageTest, AnInjectedErrorNeverRunsTheCallAndEveryRetrySeesOne) {
  ManualEnv env;
  CountingListener counts;
  auto chaos = Chaos({.rate = 1.0, .listener = &counts});
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(ThreeAttempts()).AddChaos(chaos).Build());
  int calls = 0;
  CallContext ctx;
  Status s = p.Execute(ctx, [&](CallContext&) { return ++calls, Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.source(), "chaos");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(counts.Read().count(EventKind::kChaosInjected, PolicyId::kChaos, "error"), 3u);
  chaos->SetEnabled(false);
  EXPECT_TRUE(p.Execute(ctx, [&](CallContext&) { return ++calls, Status::Ok(); }).ok());
  EXPECT_EQ(calls, 1);
}

TEST(ChaosStageTest, AnInjectedOutcomeRunsTheCallAndReplacesItsAnswer) {
  ManualEnv env;
  auto chaos = Chaos({.kind = ChaosKind::kOutcome, .rate = 1.0, .status = Status::Internal("lost reply")});
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddChaos(chaos).Build());
  int calls = 0;
  CallContext ctx;
  Result<int> r = p.Execute(ctx, [&](CallContext&) { return ++calls, Result<int>(42); });
  EXPECT_EQ(calls, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().message(), "lost reply");
}

TEST(ChaosStageTest, AnInjectedLatencyWaitsOnThePipelineClockThenCalls) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddChaos(Latency(50ms)).Build());
  int calls = 0;
  CallContext ctx;
  EXPECT_TRUE(p.Execute(ctx, [&](CallContext&) { return ++calls, Status::Ok(); }).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(env.clock.total_slept(), 50ms);
}

TEST(ChaosStageTest, AnInjectedLatencyNeverWaitsPastTheDeadline) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddChaos(Latency(1s)).Build());
  int calls = 0;
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 20ms)};
  Status s = p.Execute(ctx, [&](CallContext&) { return ++calls, Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "chaos");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(env.clock.total_slept(), 20ms);
}

TEST(ChaosStageTest, AnInjectedLatencyEndsAtOnceWhenTheCallIsCancelled) {
  // This clock moves only when told: the wait can end only through the stop.
  ManualClock clock(TimePoint(1h), ManualClock::SleepMode::kBlockOnSleep);
  auto timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  PipelineRef p = Unwrap(PipelineBuilder({.clock = &clock, .timers = timers.get()}).AddChaos(Latency(1h)).Build());
  std::stop_source stop;
  CallContext ctx{.stop = stop.get_token()};
  int calls = 0;
  std::jthread canceller([&] { stop.request_stop(); });  // before or during the wait: the same answer
  Status s = p.Execute(ctx, [&](CallContext&) { return ++calls, Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_EQ(s.source(), "chaos");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(clock.Now(), TimePoint(1h));
}

TEST(ChaosStageTest, TheBuilderRefusesChaosOutsideRetryUnlessToldWhy) {
  ManualEnv env;
  auto chaos = Chaos({.rate = 0.1});
  auto outside = PipelineBuilder(env.options()).AddChaos(chaos).AddRetry(ThreeAttempts()).Build();
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(),
              HasSubstr("stages[0] (chaos): outside retry (stages[1]) retries would never see an injected fault"));
  auto meant = PipelineBuilder(env.options())
                   .AddChaos(chaos, {.outside_retry_because = "rehearse whole-call failures"})
                   .AddRetry(ThreeAttempts())
                   .Build();
  EXPECT_TRUE(meant.ok()) << meant.status().ToString();
  auto none = PipelineBuilder(env.options()).AddChaos(nullptr).Build();
  EXPECT_THAT(none.status().message(), HasSubstr("stages[0] (chaos): chaos: policy must not be null"));
}

TEST(ChaosStageTest, AsyncLatencyIsATimerOfTheDriverNotAParkedThread) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddChaos(Latency(50ms)).Build());
  ASSERT_TRUE(p.AsyncSupport().ok());
  int calls = 0;
  std::optional<Status> got;
  CallContext ctx;
  p.ExecuteAsync(
      ctx, [&](CallContext&, Completion<Status> done) { ++calls, done(Status::Ok()); }, [&](Status s) { got = s; });
  EXPECT_FALSE(got.has_value());  // ExecuteAsync returned: no thread waits
  EXPECT_EQ(env.timers->armed(), 1u);
  env.AdvanceAndFire(49ms);
  EXPECT_EQ(calls, 0);
  env.AdvanceAndFire(1ms);
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok());
}

TEST(ChaosStageTest, AsyncLatencyEndsAtTheDeadlineOrTheStop) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddChaos(Latency(1s)).Build());
  int calls = 0;
  auto attempt = [&](CallContext&, Completion<Status> done) { ++calls, done(Status::Ok()); };
  std::optional<Status> late;
  CallContext timed{.deadline = Deadline::After(env.clock.Now(), 20ms)};
  p.ExecuteAsync(timed, attempt, [&](Status s) { late = s; });
  env.AdvanceAndFire(20ms);
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->code(), StatusCode::kDeadlineExceeded);

  std::stop_source stop;
  std::optional<Status> cancelled;
  CallContext stoppable{.stop = stop.get_token()};
  p.ExecuteAsync(stoppable, attempt, [&](Status s) { cancelled = s; });
  stop.request_stop();  // ends the wait inline
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(cancelled->code(), StatusCode::kCancelled);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(env.timers->armed(), 0u);
}

TEST(ChaosStageTest, AsyncErrorAndOutcomeAnswerAsTheBlockingDriverDoes) {
  ManualEnv env;
  PipelineRef errors = Unwrap(PipelineBuilder(env.options()).AddChaos(Chaos({.rate = 1.0})).Build());
  PipelineRef lost =
      Unwrap(PipelineBuilder(env.options()).AddChaos(Chaos({.kind = ChaosKind::kOutcome, .rate = 1.0})).Build());
  int calls = 0;
  auto attempt = [&](CallContext&, Completion<Status> done) { ++calls, done(Status::Ok()); };
  CallContext ctx;
  Status a, b;
  errors.ExecuteAsync(ctx, attempt, [&](Status s) { a = s; });
  EXPECT_EQ(calls, 0);
  lost.ExecuteAsync(ctx, attempt, [&](Status s) { b = s; });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a.code(), StatusCode::kUnavailable);
  EXPECT_EQ(b.code(), StatusCode::kUnavailable);
  EXPECT_EQ(b.source(), "chaos");
}

TEST(ChaosStageTest, InjectionsAreCountedByKindInTheMetrics) {
  ManualEnv env;
  MetricsListener metrics;
  auto chaos = Chaos({.rate = 1.0, .listener = &metrics.For("pay")});
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(ThreeAttempts()).AddChaos(chaos).Build());
  CallContext ctx;
  p.Execute(ctx, [](CallContext&) { return Status::Ok(); });
  EXPECT_THAT(metrics.Scrape(), HasSubstr("# TYPE stormguard_chaos_injections_total counter\n"
                                          "stormguard_chaos_injections_total{name=\"pay\",kind=\"error\"} 3\n"));
}

}  // namespace
}  // namespace stormguard
