// Sampled attempt timing (AttemptTiming::kSampled, what MetricsListener asks
// for): slow attempts are timed exactly, fast ones 1 in kAttemptSampleEvery
// per thread with that weight, and the counters by outcome stay exact. Each
// test runs on a fresh thread, so the thread's sampling countdown starts
// full whatever ran before.
#include <gtest/gtest.h>

#include <optional>
#include <string>
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

constexpr Duration kTick = 4ms;

// A thread of its own whose countdown starts at the last phase: it times
// its 16th fast attempt, so the counts below are exact.
template <class F>
void OnFreshThread(F f) {
  std::thread([&f] {
    core_internal::SetAttemptPhase(kAttemptSampleEvery - 1);
    f();
  }).join();
}

struct Fixture {
  explicit Fixture(bool retry, Listener* to = nullptr) : listener(to != nullptr ? to : &metrics.For("p")) {
    PipelineBuilder b({.clock = &clock, .timers = timers.get(), .listener = listener});
    b.AddTimeout(1s);
    if (retry) b.AddRetry({.max_attempts = 1, .budget = Unwrap(TokenBucketBudget::Create({}))});
    pipeline.emplace(Unwrap(b.AddCircuitBreaker(CircuitBreakerOptions{}).Build()));
  }
  // One call from the start of a tick that takes `d` and answers `s`.
  Status Call(Duration d, Status s = Status::Ok()) {
    clock.ToNextTick();
    CallContext ctx;
    return pipeline->Execute(ctx, [&](CallContext&) {
      clock.base.Advance(d);
      return s;
    });
  }
  std::string Sample(std::string_view series) const {
    const std::string text = metrics.Scrape();
    const std::string key = std::string(series) + " ";
    const std::size_t at = text.find(key);
    if (at == std::string::npos) return "absent";
    return text.substr(at + key.size(), text.find('\n', at) - at - key.size());
  }

  MetricsListener metrics;
  Listener* listener;
  CountingClock clock{kTick};
  std::shared_ptr<TimerService> timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  std::optional<PipelineRef> pipeline;
};

std::string Bucket(std::string_view le) {
  return "stormguard_attempt_duration_seconds_bucket{name=\"p\",le=\"" + std::string(le) + "\"}";
}
constexpr std::string_view kCount = "stormguard_attempt_duration_seconds_count{name=\"p\"}";
constexpr std::string_view kSum = "stormguard_attempt_duration_seconds_sum{name=\"p\"}";
constexpr std::string_view kSuccesses = "stormguard_attempts_total{name=\"p\",outcome=\"success\"}";

TEST(AttemptSamplingTest, MetricsListenersAskForSampledTiming) {
  MetricsListener metrics;
  ScopedListener scoped("p", metrics);
  CountingListener counting;
  EXPECT_EQ(metrics.attempt_timing(), AttemptTiming::kSampled);
  EXPECT_EQ(metrics.For("p").attempt_timing(), AttemptTiming::kSampled);
  EXPECT_EQ(scoped.attempt_timing(), AttemptTiming::kSampled);
  EXPECT_EQ(counting.attempt_timing(), AttemptTiming::kEvery);
}

// Under a tick: the retry reads no precise time after 15 attempts in 16 and
// times the 16th with weight 16. 32 attempts of 100 us: two samples stand
// for all of them, and here the estimate is exact.
TEST(AttemptSamplingTest, FastAttemptsAreTimedOneInSixteenWithWeightSixteen) {
  OnFreshThread([] {
    Fixture f(/*retry=*/true);
    for (int call = 1; call <= 32; ++call) {
      ASSERT_TRUE(f.Call(100us).ok());
      const int sampled = call / 16;
      EXPECT_EQ(f.clock.precise, call + sampled) << call;  // the timeout's, and the samples'
    }
    EXPECT_EQ(f.Sample(kSuccesses), "32");
    EXPECT_EQ(f.Sample(Bucket("0.0005")), "32");
    EXPECT_EQ(f.Sample(Bucket("+Inf")), "32");
    EXPECT_EQ(f.Sample(kCount), "32");
    EXPECT_EQ(f.Sample(kSum), "0.0032");
  });
}

// An attempt the coarse clock saw pass a tick may be slow: it is always
// timed, exactly, with weight 1, and does not use up the sampling countdown.
TEST(AttemptSamplingTest, SlowAttemptsAreAlwaysTimedExactly) {
  OnFreshThread([] {
    Fixture f(/*retry=*/true);
    for (int call = 1; call <= 5; ++call) {
      ASSERT_TRUE(f.Call(3 * kTick).ok());
      EXPECT_EQ(f.clock.precise, 2 * call);
    }
    for (int call = 1; call <= 15; ++call) ASSERT_TRUE(f.Call(100us).ok());
    EXPECT_EQ(f.clock.precise, 10 + 15);  // still the 15 untimed fast ones
    EXPECT_EQ(f.Sample(Bucket("0.01")), "0");
    EXPECT_EQ(f.Sample(Bucket("0.025")), "5");
    EXPECT_EQ(f.Sample(Bucket("+Inf")), "5");
    EXPECT_EQ(f.Sample(kSum), "0.06");
    EXPECT_EQ(f.Sample(kSuccesses), "20");
  });
}

// Without a retry the pipeline reports the attempts itself, sampled the same
// way; the counters by outcome stay exact and the histogram's buckets are
// cumulative with +Inf == _count.
TEST(AttemptSamplingTest, CountersByOutcomeStayExactAndTheHistogramConsistent) {
  OnFreshThread([] {
    Fixture f(/*retry=*/false);
    for (int i = 0; i < 24; ++i) {
      (void)f.Call(100us, i % 2 == 0 ? Status::Ok() : Status::Unavailable("down"));
    }
    (void)f.Call(30ms, Status::Unavailable("down"));
    EXPECT_EQ(f.Sample(kSuccesses), "12");
    EXPECT_EQ(f.Sample("stormguard_attempts_total{name=\"p\",outcome=\"transient\"}"), "13");
    EXPECT_EQ(f.Sample(Bucket("0.0005")), "16");  // one sample of 16, of 24 fast attempts
    EXPECT_EQ(f.Sample(Bucket("0.05")), "17");
    EXPECT_EQ(f.Sample(Bucket("+Inf")), "17");
    EXPECT_EQ(f.Sample(kCount), "17");
    std::uint64_t previous = 0;
    for (std::string_view le : {"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "+Inf"}) {
      const std::uint64_t n = std::stoull(f.Sample(Bucket(le)));
      EXPECT_GE(n, previous) << le;
      previous = n;
    }
  });
}

// A listener that keeps the default (CountingListener) still gets every
// attempt's duration, and the pipeline reads the precise clock after each.
TEST(AttemptSamplingTest, AListenerThatTimesEveryAttemptGetsEveryDuration) {
  OnFreshThread([] {
    CountingListener counting;
    Fixture f(/*retry=*/true, &counting);
    for (int call = 1; call <= 20; ++call) ASSERT_TRUE(f.Call(100us).ok());
    EXPECT_EQ(f.clock.precise, 40);
    const CountingListener::Snapshot s = counting.Read();
    EXPECT_EQ(s.count(EventKind::kAttemptEnded, PolicyId::kRetry), 20u);
    EXPECT_EQ(s.total(EventKind::kAttemptEnded, PolicyId::kRetry), 20 * 100us);
  });
}

// The asynchronous form samples the same way.
TEST(AttemptSamplingTest, TheAsynchronousFormSamplesToo) {
  OnFreshThread([] {
    Fixture f(/*retry=*/true);
    for (int call = 1; call <= 32; ++call) {
      f.clock.ToNextTick();
      CallContext ctx;
      std::optional<Status> got;
      f.pipeline->ExecuteAsync(
          ctx,
          [&](CallContext&, Completion<Status> done) {
            f.clock.base.Advance(100us);
            done(Status::Ok());
          },
          [&](Status s) { got = std::move(s); });
      ASSERT_TRUE(got.has_value() && got->ok());
    }
    EXPECT_EQ(f.Sample(kSuccesses), "32");
    EXPECT_EQ(f.Sample(kCount), "32");
    EXPECT_EQ(f.Sample(kSum), "0.0032");
  });
}

}  // namespace
}  // namespace stormguard
