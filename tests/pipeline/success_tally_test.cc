// A listener's SuccessTally: the retry policy and the pipeline count an
// untimed success there instead of building its kAttemptEnded event, and
// every other attempt end still arrives as an event. Each test runs on a
// fresh thread, so the thread's sampling countdown starts full (15 untimed
// fast attempts, then one timed with weight 16).
#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/core/success_tally.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::Unwrap;

template <class F>
void OnFreshThread(F f) {
  std::thread([&f] {
    core_internal::SetAttemptPhase(kAttemptSampleEvery - 1);  // times its 16th fast attempt
    f();
  }).join();
}

// Samples fast attempts, counts untimed successes in its tally, and keeps
// every attempt end it is sent (one thread only).
class TallyListener final : public Listener {
 public:
  void OnEvent(const Event& e) noexcept override {
    if (e.kind == EventKind::kAttemptEnded) ended.push_back(e);
  }
  AttemptTiming attempt_timing() const noexcept override { return AttemptTiming::kSampled; }
  SuccessTally* success_tally() noexcept override { return &tally; }

  SuccessTally tally;
  std::vector<Event> ended;
};

PipelineRef Build(Listener& listener, testkit::CountingClock& clock, TimerService& timers, int attempts) {
  PipelineBuilder b({.clock = &clock, .timers = &timers, .listener = &listener});
  b.AddTimeout(1s);
  if (attempts > 0) b.AddRetry({.max_attempts = attempts, .backoff = {.base = 1ms}});
  return Unwrap(b.AddCircuitBreaker(CircuitBreakerOptions{}).Build());
}

struct Fixture {
  explicit Fixture(int attempts) : pipeline(Build(listener, clock, *timers, attempts)) {}
  Status Call(std::vector<Status> answers) {
    CallContext ctx;
    std::size_t i = 0;
    return pipeline.Execute(ctx, [&](CallContext&) { return answers[std::min(i++, answers.size() - 1)]; });
  }

  TallyListener listener;
  testkit::CountingClock clock;
  std::shared_ptr<TimerService> timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
  PipelineRef pipeline;
};

TEST(SuccessTallyTest, TheRetryCountsUntimedFirstAttemptSuccessesInTheTally) {
  OnFreshThread([] {
    Fixture f(/*attempts=*/3);
    for (int call = 0; call < 32; ++call) ASSERT_TRUE(f.Call({Status::Ok()}).ok());
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kRetryFirstAttempt), 30u);
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kRetryLaterAttempt), 0u);
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kPipeline), 0u);
    ASSERT_EQ(f.listener.ended.size(), 2u);  // the two timed ones, as events
    for (const Event& e : f.listener.ended) {
      EXPECT_EQ(e.policy, PolicyId::kRetry);
      EXPECT_EQ(e.weight, kAttemptSampleEvery);
    }
  });
}

TEST(SuccessTallyTest, ASuccessAfterARetryIsTalliedAsALaterAttemptAndTheFailureIsAnEvent) {
  OnFreshThread([] {
    Fixture f(/*attempts=*/3);
    ASSERT_TRUE(f.Call({Status::Unavailable("down"), Status::Ok()}).ok());
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kRetryLaterAttempt), 1u);
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kRetryFirstAttempt), 0u);
    ASSERT_EQ(f.listener.ended.size(), 1u);  // a failure is always timed and reported
    EXPECT_EQ(f.listener.ended[0].outcome, OutcomeClass::kTransient);
    EXPECT_EQ(f.listener.ended[0].weight, 1u);
  });
}

TEST(SuccessTallyTest, APipelineWithoutRetryCountsItsUntimedSuccessesAsThePipelines) {
  OnFreshThread([] {
    Fixture f(/*attempts=*/0);
    for (int call = 0; call < 16; ++call) ASSERT_TRUE(f.Call({Status::Ok()}).ok());
    ASSERT_TRUE(f.Call({Status::Unavailable("down")}).code() == StatusCode::kUnavailable);
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kPipeline), 15u);
    ASSERT_EQ(f.listener.ended.size(), 2u);  // the sample, and the failure
    EXPECT_EQ(f.listener.ended[0].policy, PolicyId::kPipeline);
    EXPECT_EQ(f.listener.ended[0].weight, kAttemptSampleEvery);
    EXPECT_EQ(f.listener.ended[1].outcome, OutcomeClass::kTransient);
  });
}

TEST(SuccessTallyTest, TheAsynchronousFormTalliesToo) {
  OnFreshThread([] {
    Fixture f(/*attempts=*/0);
    for (int call = 0; call < 16; ++call) {
      CallContext ctx;
      std::optional<Status> got;
      f.pipeline.ExecuteAsync(
          ctx, [](CallContext&, Completion<Status> done) { done(Status::Ok()); },
          [&](Status s) { got = std::move(s); });
      ASSERT_TRUE(got.has_value() && got->ok());
    }
    EXPECT_EQ(f.listener.tally.Read(SuccessTally::kPipeline), 15u);
    EXPECT_EQ(f.listener.ended.size(), 1u);
  });
}

// More threads than own a shard: the ones past them share one with atomic
// adds, and no count is lost (TSan checks the plain stores of the others).
TEST(SuccessTallyTest, CountsFromMoreThreadsThanOwnAShardAreAllKept) {
  SuccessTally tally;
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&tally] {
      for (int i = 0; i < 1000; ++i) tally.Add(SuccessTally::kRetryFirstAttempt);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(tally.Read(SuccessTally::kRetryFirstAttempt), 12'000u);
  EXPECT_EQ(tally.Read(SuccessTally::kPipeline), 0u);
}

// The metrics listener's instance tallies, and its series still count every
// success: as an attempt and as a retry call without or with retry.
TEST(SuccessTallyTest, MetricsSeriesAddTheTallyToTheEvents) {
  OnFreshThread([] {
    MetricsListener metrics;
    ASSERT_NE(metrics.For("p").success_tally(), nullptr);
    EXPECT_EQ(metrics.success_tally(), nullptr);  // it routes by scope: events only
    testkit::CountingClock clock;
    auto timers = Unwrap(TimerService::Create(clock, {.background_thread = false}));
    const PipelineRef p = Build(metrics.For("p"), clock, *timers, 3);
    for (int call = 0; call < 20; ++call) {
      CallContext ctx;
      ASSERT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
    }
    CallContext ctx;
    int n = 0;
    ASSERT_TRUE(p.Execute(ctx, [&](CallContext&) { return n++ == 0 ? Status::Unavailable("x") : Status::Ok(); }).ok());
    const std::string text = metrics.Scrape();
    EXPECT_NE(text.find("stormguard_attempts_total{name=\"p\",outcome=\"success\"} 21\n"), std::string::npos) << text;
    EXPECT_NE(text.find("stormguard_retry_calls_total{name=\"p\",kind=\"successful_without_retry\"} 20\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("stormguard_retry_calls_total{name=\"p\",kind=\"successful_with_retry\"} 1\n"),
              std::string::npos)
        << text;
  });
}

}  // namespace
}  // namespace stormguard
