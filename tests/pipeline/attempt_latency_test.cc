// The attempt latency a listener sees while the pipeline shares its clock
// readings: an attempt runs from the reading the stages took on the way in
// to the one taken right after the call, and a backoff wait between
// attempts is never part of either attempt.
#include <gtest/gtest.h>

#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/metrics_listener.h"
#include "testkit/recording_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::RecordingListener;
using testkit::Unwrap;

std::vector<Duration> Latencies(const RecordingListener& events, PolicyId policy) {
  std::vector<Duration> out;
  for (const Event& e : events.events()) {
    if (e.kind == EventKind::kAttemptEnded && e.policy == policy) out.push_back(e.duration);
  }
  return out;
}

struct Timed {
  ManualClock clock;  // advances through each backoff wait
  std::shared_ptr<TimerService> timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  RecordingListener events;

  PipelineBuilder Builder() { return PipelineBuilder({.clock = &clock, .timers = timers.get(), .listener = &events}); }
};

TEST(AttemptLatencyTest, TheRetryTimesEachAttemptWithoutItsBackoffWait) {
  Timed t;
  const PipelineRef p =
      Unwrap(t.Builder()
                 .AddTimeout(1s)
                 .AddRetry({.max_attempts = 3, .backoff = {.kind = BackoffKind::kConstant, .base = 40ms, .cap = 40ms}})
                 .AddCircuitBreaker(CircuitBreakerOptions{})
                 .Build());
  CallContext ctx;
  const Status s = p.Execute(ctx, [&](CallContext& attempt) {
    t.clock.Advance(attempt.attempt == 1 ? 2ms : 1ms);
    return attempt.attempt == 1 ? Status::Unavailable("down") : Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(t.clock.total_slept(), 40ms);
  EXPECT_EQ(Latencies(t.events, PolicyId::kRetry), (std::vector<Duration>{2ms, 1ms}));
}

TEST(AttemptLatencyTest, WithoutARetryThePipelineTimesTheCall) {
  Timed t;
  const PipelineRef p = Unwrap(t.Builder().AddTimeout(1s).AddCircuitBreaker(CircuitBreakerOptions{}).Build());
  CallContext ctx;
  const TimePoint t0 = t.clock.Now();
  ASSERT_TRUE(p.Execute(ctx, [&](CallContext&) {
                 t.clock.Advance(3ms);
                 return Status::Ok();
               }).ok());
  EXPECT_EQ(Latencies(t.events, PolicyId::kPipeline), (std::vector<Duration>{3ms}));
  for (const Event& e : t.events.events()) {
    if (e.kind == EventKind::kAttemptStarted) {
      EXPECT_EQ(e.at, t0);
    } else if (e.kind == EventKind::kAttemptEnded) {
      EXPECT_EQ(e.at, t0 + 3ms);
    }
  }
}

// End to end: the histogram gets the attempt's own time, not the wait.
TEST(AttemptLatencyTest, TheMetricsHistogramGetsEachAttemptsOwnTime) {
  ManualClock clock;
  auto timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  MetricsListener metrics;
  const PipelineRef p =
      Unwrap(PipelineBuilder({.clock = &clock, .timers = timers.get(), .listener = &metrics.For("pay")})
                 .AddTimeout(1s)
                 .AddRetry({.max_attempts = 2, .backoff = {.kind = BackoffKind::kConstant, .base = 40ms, .cap = 40ms}})
                 .Build());
  CallContext ctx;
  ASSERT_TRUE(p.Execute(ctx, [&](CallContext& attempt) {
                 clock.Advance(3ms);
                 return attempt.attempt == 1 ? Status::Unavailable("down") : Status::Ok();
               }).ok());
  const std::string text = metrics.Scrape();
  EXPECT_NE(text.find("stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.0025\"} 0\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.005\"} 2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stormguard_attempt_duration_seconds_sum{name=\"pay\"} 0.006\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace stormguard
