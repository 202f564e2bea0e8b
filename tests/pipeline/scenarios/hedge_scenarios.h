// The hedge scenarios, written once and run by every driver as
// pipeline_scenarios.h's are (an instantiation per driver).
#pragma once

#include "pipeline/scenarios/pipeline_scenarios.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::testkit {

// The executor a blocking hedge runs its attempts on: the driver's when it
// has one (BlockingDriver's takes turns on virtual time), else a pool that
// an asynchronous driver never uses.
template <class Driver>
std::shared_ptr<Executor> HedgeExecutorOf(Driver& driver) {
  if constexpr (requires { driver.hedge_executor(); }) {
    return driver.hedge_executor();
  } else {
    return Unwrap(Executor::Create({.threads = 1, .timers = &driver.clock().timers()}));
  }
}

// Hedging: several attempts of one call in flight at once. A suite of its
// own, since another driver's binary may instantiate one suite without the
// other: INSTANTIATE_TYPED_TEST_SUITE_P(X, HedgeScenarios, XDriver).
template <class Driver>
class HedgeScenarios : public PipelineScenarios<Driver> {
 protected:
  std::shared_ptr<Executor> workers = HedgeExecutorOf(this->driver);

  static HedgeOptions After(Duration delay, int hedges = 1) {
    return {.delay = delay, .max_hedged_attempts = hedges, .idempotent = true};
  }
};

TYPED_TEST_SUITE_P(HedgeScenarios);

// A budget that grants no retry, so no hedge either; it counts the books.
class NoHedgesBudget final : public RetryBudget {
 public:
  std::string_view name() const noexcept override { return "no_hedges"; }
  void OnRequestStart(TimePoint) noexcept override { ++starts; }
  void OnRequestEnd(TimePoint) noexcept override { ++ends; }
  void RecordSuccess(TimePoint) noexcept override {}
  void RecordFailure(TimePoint) noexcept override { ++failures; }
  bool TryAcquireRetry(TimePoint) noexcept override { return false; }
  void OnRetryEnd(TimePoint) noexcept override {}
  std::atomic<int> starts{0}, ends{0}, failures{0};
};

TYPED_TEST_P(HedgeScenarios, TheHedgeWinsAndTheSlowPrimarySeesItsStop) {
  CountingListener counters;
  PipelineRef p = Unwrap(this->Builder(&counters).AddHedge(this->After(50ms), this->workers).Build());
  CallRecord r = this->Run(p, {{500ms}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);  // the hedge's value
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 50ms));
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, false));
  EXPECT_EQ(r.took, 60ms);
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kHedgeLaunched, PolicyId::kHedge), 1u);
  EXPECT_EQ(snap.count(EventKind::kHedgeWon, PolicyId::kHedge), 1u);
  EXPECT_EQ(snap.total(EventKind::kHedgeWon, PolicyId::kHedge), 60ms);  // since the primary started
  EXPECT_EQ(snap.count(EventKind::kAttemptEnded, PolicyId::kHedge), 2u);
  EXPECT_EQ(snap.count(EventKind::kAttemptStarted, PolicyId::kPipeline), 2u);
}

TYPED_TEST_P(HedgeScenarios, APrimaryThatAnswersBeforeTheDelayStartsNoHedge) {
  CountingListener counters;
  PipelineRef p = Unwrap(this->Builder(&counters).AddHedge(this->After(50ms), this->workers).Build());
  CallRecord r = this->Run(p, {{20ms}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 1);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms));
  EXPECT_EQ(r.took, 20ms);
  EXPECT_EQ(counters.Read().count(EventKind::kHedgeLaunched, PolicyId::kHedge), 0u);
}

// A call counts as won by hedging only when a hedge's result is the answer:
// not when the primary answers first, even with a hedge in flight.
TYPED_TEST_P(HedgeScenarios, OnlyCallsAHedgeAnsweredCountAsHedgesWon) {
  MetricsListener metrics;
  PipelineRef p = Unwrap(this->Builder(&metrics.For("stock")).AddHedge(this->After(50ms), this->workers).Build());
  EXPECT_EQ(*this->Run(p, {{60ms}, {500ms}}).result, 1);  // the primary wins the race
  EXPECT_EQ(metrics.Scrape().find("stormguard_hedges_won_total"), std::string::npos);
  EXPECT_EQ(*this->Run(p, {{500ms}, {10ms}}).result, 2);  // the hedge wins
  const std::string scrape = metrics.Scrape();
  EXPECT_NE(scrape.find("stormguard_hedges_sent_total{name=\"stock\"} 2\n"), std::string::npos) << scrape;
  EXPECT_NE(scrape.find("stormguard_hedges_won_total{name=\"stock\"} 1\n"), std::string::npos) << scrape;
}

TYPED_TEST_P(HedgeScenarios, ANonFatalFailureLaunchesTheHedgeAtOnce) {
  PipelineRef p = Unwrap(this->Builder().AddHedge(this->After(1s), this->workers).Build());
  CallRecord r = this->Run(p, {{10ms, kDown}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 10ms));
  EXPECT_EQ(r.took, 20ms);
}

TYPED_TEST_P(HedgeScenarios, AFatalFailureEndsTheCallAndStopsTheOthers) {
  PipelineRef p = Unwrap(this->Builder().AddHedge(this->After(10ms), this->workers).Build());
  CallRecord r = this->Run(p, {{500ms}, {20ms, Status::NotFound("no such stock")}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, false));
  EXPECT_EQ(r.took, 30ms);
}

TYPED_TEST_P(HedgeScenarios, WhenEveryHedgedAttemptFailsTheCallReportsTheFailure) {
  CountingListener counters;
  PipelineRef p = Unwrap(this->Builder(&counters).AddHedge(this->After(50ms), this->workers).Build());
  CallRecord r = this->Run(p, {{100ms, kDown}, {100ms, kDown}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(r.result.status().hints().do_not_retry);  // no attempt left: the hedge gave up for the chain
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 50ms));
  EXPECT_EQ(r.took, 150ms);
  EXPECT_EQ(counters.Read().count(EventKind::kGaveUp, PolicyId::kHedge), 1u);
}

TYPED_TEST_P(HedgeScenarios, AnOverallTimeoutCancelsEveryHedgedAttempt) {
  PipelineRef p = Unwrap(this->Builder().AddTimeout(80ms).AddHedge(this->After(30ms), this->workers).Build());
  CallRecord r = this->Run(p, {{500ms}, {500ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.result.status().source(), "timeout");
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 30ms));
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, true));
  EXPECT_EQ(r.took, 80ms);
}

TYPED_TEST_P(HedgeScenarios, TheCallersStopCancelsEveryHedgedAttempt) {
  PipelineRef p = Unwrap(this->Builder().AddHedge(this->After(30ms), this->workers).Build());
  std::stop_source caller;
  this->driver.clock().At(this->driver.clock().Now() + 40ms, [&] { caller.request_stop(); });
  CallContext ctx{.stop = caller.get_token()};
  CallRecord r = this->driver.Run(p, ctx, {{500ms}, {500ms}}, false);
  EXPECT_EQ(r.result.status().code(), StatusCode::kCancelled);
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, true));
  EXPECT_EQ(r.took, 40ms);
}

TYPED_TEST_P(HedgeScenarios, StagesInsideTheHedgeRunOncePerHedgedAttempt) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 2})));
  RetryOptions o = this->Retries(2);
  o.idempotent = true;  // a timed-out attempt may have run
  PipelineRef p = Unwrap(this->Builder()
                             .AddRetry(o)
                             .AddHedge(this->After(50ms), this->workers)
                             .AddBulkhead(bulkhead)
                             .AddAttemptTimeout(300ms)
                             .Build());
  CallRecord r = this->Run(p, {{500ms}, {400ms}, {10ms}});
  // Each hedged attempt has its own 300ms: the primary's runs out first
  // (a fatal answer, which stops the hedge), and the retry runs the hedge
  // again after its backoff.
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 3);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 50ms, 400ms));
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, true, false));
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

// Without an Executor the hedge serves the asynchronous drivers, which
// launch hedged attempts themselves; the blocking driver is refused, told
// which stage needs one, and runs nothing.
TYPED_TEST_P(HedgeScenarios, AHedgeWithoutAnExecutorRunsOnlyAsynchronously) {
  CountingListener counters;
  PipelineRef p = Unwrap(this->Builder(&counters).AddRetry(this->Retries(2)).AddHedge(this->After(50ms)).Build());
  CallRecord r = this->Run(p, {{500ms}, {10ms}});
  auto snap = counters.Read();
  if constexpr (requires { this->driver.hedge_executor(); }) {  // the blocking driver
    EXPECT_EQ(r.result.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(r.result.status().message(), ::testing::HasSubstr("stages[1] (hedge): has no Executor"));
    EXPECT_TRUE(r.attempt_starts.empty());
    EXPECT_EQ(snap.count(EventKind::kAttemptStarted, PolicyId::kPipeline), 0u);
  } else {
    ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
    EXPECT_EQ(*r.result, 2);  // the hedge's value
    EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 50ms));
    EXPECT_EQ(snap.count(EventKind::kHedgeLaunched, PolicyId::kHedge), 1u);
    EXPECT_EQ(snap.count(EventKind::kHedgeWon, PolicyId::kHedge), 1u);
  }
}

TYPED_TEST_P(HedgeScenarios, TwoHedgesLaunchADelayApartAndTheFirstAnswerWins) {
  PipelineRef p = Unwrap(this->Builder().AddHedge(this->After(20ms, 2), this->workers).Build());
  CallRecord r = this->Run(p, {{500ms}, {500ms}, {5ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 3);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 20ms, 40ms));  // max_hedged_attempts: no fourth
  EXPECT_THAT(r.saw_stop, ::testing::ElementsAre(true, true, false));
  EXPECT_EQ(r.took, 45ms);
}

TYPED_TEST_P(HedgeScenarios, APushbackHoldsTheHedgeAfterAFailure) {
  PipelineRef p = Unwrap(this->Builder().AddHedge(this->After(1s), this->workers).Build());
  CallRecord r = this->Run(p, {{10ms, Status::Unavailable("busy").WithHints({.pushback = 20ms})}, {10ms}});
  ASSERT_TRUE(r.result.ok()) << r.result.status().ToString();
  EXPECT_EQ(*r.result, 2);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms, 30ms));
  EXPECT_EQ(r.took, 40ms);
}

TYPED_TEST_P(HedgeScenarios, ABudgetThatRefusesHoldsTheHedgeBackAndTheFailureGivesUp) {
  CountingListener counters;
  auto budget = std::make_shared<NoHedgesBudget>();
  HedgeOptions o = this->After(50ms);
  o.budget = budget;
  PipelineRef p = Unwrap(this->Builder(&counters).AddHedge(o, this->workers).Build());
  CallRecord r = this->Run(p, {{100ms, kDown}, {10ms}});
  EXPECT_EQ(r.result.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(r.result.status().hints().do_not_retry);  // held back by the budget: gave up for the chain
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms));
  EXPECT_EQ(r.took, 100ms);
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kHedgeLaunched, PolicyId::kHedge), 0u);
  EXPECT_EQ(snap.count(EventKind::kGaveUp, PolicyId::kHedge), 1u);
  EXPECT_EQ(budget->starts, 1);
  EXPECT_EQ(budget->ends, 1);
  EXPECT_EQ(budget->failures, 1);
}

// The session feeds the tracker each success's latency; the next call's
// delay is its quantile (a bucket's upper edge: launched at the first tick
// at or past it).
TYPED_TEST_P(HedgeScenarios, TheDelayFollowsTheLatencyOfEarlierCalls) {
  auto tracker = Unwrap(LatencyTracker::Create({.min_samples = 1}));
  HedgeOptions o = this->After(1s);
  o.latency = tracker;
  o.delay_refresh = Duration::zero();
  PipelineRef p = Unwrap(this->Builder().AddHedge(o, this->workers).Build());
  EXPECT_EQ(*this->Run(p, {{8ms}}).result, 1);
  const std::optional<Duration> q = tracker->Quantile(o.quantile, this->driver.clock().Now());
  ASSERT_TRUE(q.has_value());
  CallRecord r = this->Run(p, {{500ms}, {5ms}});
  EXPECT_EQ(*r.result, 2);
  ASSERT_EQ(r.attempt_starts.size(), 2u);
  EXPECT_GE(r.attempt_starts[1], *q);
  EXPECT_LT(r.attempt_starts[1], *q + ScenarioClock::kTick);
}

TYPED_TEST_P(HedgeScenarios, ACallThatIsNotIdempotentRunsOnceWithoutHedging) {
  HedgeOptions o = this->After(10ms);
  o.idempotent = false;
  PipelineRef p = Unwrap(this->Builder().AddHedge(o, this->workers).Build());
  CallRecord r = this->Run(p, {{100ms}, {10ms}});
  EXPECT_EQ(*r.result, 1);
  EXPECT_THAT(r.attempt_starts, ::testing::ElementsAre(0ms));
  EXPECT_EQ(r.took, 100ms);
}

REGISTER_TYPED_TEST_SUITE_P(HedgeScenarios, TheHedgeWinsAndTheSlowPrimarySeesItsStop,
                            APrimaryThatAnswersBeforeTheDelayStartsNoHedge, OnlyCallsAHedgeAnsweredCountAsHedgesWon,
                            ANonFatalFailureLaunchesTheHedgeAtOnce, AFatalFailureEndsTheCallAndStopsTheOthers,
                            WhenEveryHedgedAttemptFailsTheCallReportsTheFailure,
                            AnOverallTimeoutCancelsEveryHedgedAttempt, TheCallersStopCancelsEveryHedgedAttempt,
                            StagesInsideTheHedgeRunOncePerHedgedAttempt, AHedgeWithoutAnExecutorRunsOnlyAsynchronously,
                            TwoHedgesLaunchADelayApartAndTheFirstAnswerWins, APushbackHoldsTheHedgeAfterAFailure,
                            ABudgetThatRefusesHoldsTheHedgeBackAndTheFailureGivesUp,
                            TheDelayFollowsTheLatencyOfEarlierCalls, ACallThatIsNotIdempotentRunsOnceWithoutHedging);

}  // namespace stormguard::testkit
