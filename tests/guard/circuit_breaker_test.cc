// Closed -> open for both window kinds, options, rejections and outcome
// classes. Half-open and the special states are in circuit_breaker_states_test.cc.
#include "stormguard/guard/circuit_breaker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "core/range_test_util.h"
#include "guard/circuit_breaker_test_util.h"
#include "guard/window_test_util.h"
#include "stormguard/core/clock.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::MakeBreaker;
using ::stormguard::testkit::RecordingListener;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testkit::kFail;
using testkit::kOk;
using S = CircuitState;

// One permitted call of a scripted sequence and what the breaker must show
// right after it.
struct Call {
  Duration at;  // since the clock's start
  OutcomeClass outcome;
  Duration latency;
  WindowCounts expect;
  std::optional<double> failure_rate;
  std::optional<double> slow_call_rate;
  CircuitState state;
};

void RunScript(CircuitBreaker& cb, ManualClock& clock, const std::vector<Call>& script) {
  const TimePoint start = clock.Now();
  for (std::size_t i = 0; i < script.size(); ++i) {
    SCOPED_TRACE("call " + std::to_string(i + 1));
    const Call& c = script[i];
    clock.SetNow(start + c.at);
    ASSERT_TRUE(cb.TryAcquirePermission(clock.Now()));
    cb.OnResult(c.outcome, c.latency, clock.Now());
    testkit::ExpectWindowMetrics(cb.metrics(clock.Now()), c.expect, c.failure_rate, c.slow_call_rate);
    EXPECT_EQ(cb.state(), c.state);
  }
}

TEST(CircuitBreakerTest, DefaultsAreTheDocumentedResilience4jConfig) {
  const CircuitBreakerOptions o;
  EXPECT_EQ(o.failure_rate_threshold, 0.5);
  EXPECT_EQ(o.slow_call_rate_threshold, 0.5);
  EXPECT_EQ(o.slow_call_duration, 2s);
  EXPECT_EQ(o.window_kind, WindowKind::kCountBased);
  EXPECT_EQ(o.window_size, 100);
  EXPECT_EQ(o.minimum_number_of_calls, 100);
  EXPECT_EQ(o.wait_in_open, 30s);
  EXPECT_EQ(o.permitted_calls_in_half_open, 10);
  EXPECT_FALSE(o.automatic_transition_from_open_to_half_open);
  EXPECT_EQ(o.max_wait_in_half_open, 0s);
  EXPECT_TRUE(o.Validate().empty());
  auto cb = MakeBreaker(o);
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
}

TEST(CircuitBreakerTest, ValidateNamesEveryBadField) {
  const CircuitBreakerOptions bad{.failure_rate_threshold = 0,
                                  .slow_call_rate_threshold = 1.5,
                                  .slow_call_duration = 0s,
                                  .window_kind = WindowKind::kCountBased,
                                  .window_size = 10,
                                  .minimum_number_of_calls = 11,
                                  .wait_in_open = -1s,
                                  .wait_in_open_backoff = std::nullopt,
                                  .permitted_calls_in_half_open = 0,
                                  .automatic_transition_from_open_to_half_open = false,
                                  .max_wait_in_half_open = -1s,
                                  .failure_outcomes = {OutcomeClass::kSuccess, kFail},
                                  .ignored_outcomes = {kFail},
                                  .listener = nullptr};
  const auto errors = bad.Validate();
  for (const char* field : {"failure_rate_threshold", "slow_call_rate_threshold", "slow_call_duration",
                            "minimum_number_of_calls", "wait_in_open", "permitted_calls_in_half_open",
                            "max_wait_in_half_open", "failure_outcomes", "ignored_outcomes"}) {
    EXPECT_THAT(errors, ::testing::Contains(HasSubstr(std::string(field) + ": "))) << field;
  }
  auto made = CircuitBreaker::Create(bad);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(made.status().message(), HasSubstr("max_wait_in_half_open"));
}

// Thresholds are fractions: 50 (a Resilience4j percent) is refused, 0.5 is half.
TEST(CircuitBreakerTest, ThresholdsAreFractionsInZeroToOne) {
  testkit::ExpectRangeChecked(CircuitBreakerOptions{}, &CircuitBreakerOptions::failure_rate_threshold,
                              "failure_rate_threshold", kPositiveFraction);
  testkit::ExpectRangeChecked(CircuitBreakerOptions{}, &CircuitBreakerOptions::slow_call_rate_threshold,
                              "slow_call_rate_threshold", kPositiveFraction);
  EXPECT_THAT(CircuitBreakerOptions{.failure_rate_threshold = 50}.Validate(),
              ElementsAre("failure_rate_threshold: must be in (0, 1], got 50"));
}

TEST(CircuitBreakerTest, ValidateChecksWindowSizeForItsKind) {
  EXPECT_THAT(CircuitBreakerOptions{.window_size = 0}.Validate(),
              ::testing::Contains(HasSubstr("window_size: must be in [1, 1000000] calls")));
  const CircuitBreakerOptions time{
      .window_kind = WindowKind::kTimeBased, .window_size = 7200, .minimum_number_of_calls = 100000};
  // A time window may need more calls than it has seconds.
  EXPECT_THAT(time.Validate(), ElementsAre("window_size: must be in [1, 3600] seconds"));
}

// Count window of 4, minimum 4, 50% / 50%, slow from 2 s: the failure rate
// reaches 50% on call 5 and opens the circuit (>= trips).
TEST(CircuitBreakerTest, CountWindowOpensWhenTheFailureRateReachesTheThreshold) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 4, .minimum_number_of_calls = 4, .listener = &events});
  RunScript(*cb, clock,
            {
                {0s, kOk, 100ms, {1, 0, 0}, std::nullopt, std::nullopt, S::kClosed},
                {1s, kFail, 100ms, {2, 1, 0}, std::nullopt, std::nullopt, S::kClosed},
                {2s, kOk, 2s, {3, 1, 0}, std::nullopt, std::nullopt, S::kClosed},  // exactly 2 s: not slow
                {3s, kOk, 2001ms, {4, 1, 1}, 0.25, 0.25, S::kClosed},              // longer: slow
                {4s, kFail, 10ms, {4, 2, 1}, 0.5, 0.25, S::kOpen},                 // evicts call 1
            });
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open"));
  EXPECT_EQ(events.events().back().duration, 30s);  // the wait in open
  const Event opened = events.events().back();
  EXPECT_EQ(opened.policy, PolicyId::kCircuitBreaker);
  EXPECT_EQ(opened.from_state, static_cast<std::uint8_t>(S::kClosed));  // typed, not text
  EXPECT_EQ(opened.to_state, static_cast<std::uint8_t>(S::kOpen));
  EXPECT_EQ(opened.reason, "");
}

// Time window of 10 s, minimum 4: calls leave as their second falls out,
// and the slow-call rate (not the failure rate) finally trips it.
TEST(CircuitBreakerTest, TimeWindowOpensWhenTheSlowCallRateReachesTheThreshold) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker(
      {.window_kind = WindowKind::kTimeBased, .window_size = 10, .minimum_number_of_calls = 4, .listener = &events});
  RunScript(*cb, clock,
            {
                {0s, kFail, 0ms, {1, 1, 0}, std::nullopt, std::nullopt, S::kClosed},
                {1s, kOk, 3s, {2, 1, 1}, std::nullopt, std::nullopt, S::kClosed},
                {2s, kOk, 0ms, {3, 1, 1}, std::nullopt, std::nullopt, S::kClosed},
                {3s, kOk, 0ms, {4, 1, 1}, 0.25, 0.25, S::kClosed},
                {10s, kOk, 0ms, {4, 0, 1}, 0.0, 0.25, S::kClosed},  // second 0 left
                {11s, kOk, 5s, {4, 0, 1}, 0.0, 0.25, S::kClosed},   // second 1 left
                {11500ms, kFail, 3s, {5, 1, 2}, 0.2, 0.4, S::kClosed},
                {12s, kOk, 3s, {5, 1, 3}, 0.2, 0.6, S::kOpen},  // second 2 left
            });
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open"));
}

TEST(CircuitBreakerTest, StaysClosedUntilTheMinimumNumberOfCalls) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_size = 20, .minimum_number_of_calls = 10});
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
    cb->OnResult(kFail, 1ms, clock.Now());
  }
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
  EXPECT_FALSE(cb->metrics(clock.Now()).failure_rate.has_value());
  // The tenth call is a success, yet 9 of 10 failed: the rate is now known.
  cb->OnResult(kOk, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
}

// The time window skips judging successes only while it holds no failure.
TEST(CircuitBreakerTest, TimeWindowSuccessThatReachesTheMinimumOpensIt) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_kind = WindowKind::kTimeBased, .window_size = 10, .minimum_number_of_calls = 10});
  for (int i = 0; i < 20; ++i) cb->OnResult(kOk, 1ms, clock.Now());  // clean: not judged
  clock.Advance(10s);
  for (int i = 0; i < 9; ++i) cb->OnResult(kFail, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
  cb->OnResult(kOk, 1ms, clock.Now());  // 9 of 10 failed
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
}

TEST(CircuitBreakerTest, OneCallBelowTheThresholdStaysClosed) {
  ManualClock clock;
  auto cb = MakeBreaker({.failure_rate_threshold = 0.4, .window_size = 10, .minimum_number_of_calls = 10});
  for (int i = 0; i < 7; ++i) cb->OnResult(kOk, 1ms, clock.Now());
  for (int i = 0; i < 3; ++i) cb->OnResult(kFail, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kClosed);  // 30%
  cb->OnResult(kFail, 1ms, clock.Now());          // evicts a success: 40%
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
}

TEST(CircuitBreakerTest, OpenRejectsUntilTheWaitEndsThenTheNextCallHalfOpens) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 2, .minimum_number_of_calls = 2, .listener = &events});
  cb->OnResult(kFail, 1ms, clock.Now());
  cb->OnResult(kFail, 1ms, clock.Now());
  ASSERT_EQ(cb->state(), CircuitState::kOpen);
  const TimePoint opened = clock.Now();

  clock.SetNow(opened + 29999ms);
  EXPECT_FALSE(cb->TryAcquirePermission(clock.Now()));
  EXPECT_THAT(events.Reasons(EventKind::kRejected), ElementsAre("circuit open"));
  EXPECT_EQ(events.events().back().duration, 1ms);  // what is left of the wait
  EXPECT_EQ(cb->state(), CircuitState::kOpen);

  clock.SetNow(opened + 30s);
  EXPECT_TRUE(cb->TryAcquirePermission(clock.Now()));
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->half_open"));
}

TEST(CircuitBreakerTest, RejectionStatusNamesThePolicyAndTheWaitLeft) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_size = 1, .minimum_number_of_calls = 1});
  EXPECT_TRUE(cb->Acquire(clock.Now()).ok());
  cb->OnResult(kFail, 1ms, clock.Now());
  clock.Advance(17700ms);
  const Status s = cb->Acquire(clock.Now());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.source(), "circuit_breaker");
  EXPECT_EQ(s.message(), "circuit open; retry in 12.3s");
  EXPECT_EQ(s.hints().pushback, 12300ms);
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kOverloaded);
  EXPECT_THAT(s.ToString(), HasSubstr("[circuit_breaker]"));
}

TEST(CircuitBreakerTest, OutcomeClassesDecideFailureSuccessOrIgnored) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_size = 10, .minimum_number_of_calls = 10});
  cb->OnResult(OutcomeClass::kCancelled, 1ms, clock.Now());  // ignored: not recorded
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);
  cb->OnResult(OutcomeClass::kPermanent, 1ms, clock.Now());  // the dependency answered
  for (OutcomeClass c : {OutcomeClass::kTransient, OutcomeClass::kOverloaded, OutcomeClass::kAmbiguous,
                         OutcomeClass::kDoNotRetry, OutcomeClass::kDeadlineExceeded}) {
    cb->OnResult(c, 1ms, clock.Now());
  }
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 6);
  EXPECT_EQ(cb->metrics(clock.Now()).failures, 5);
}

TEST(CircuitBreakerTest, CustomFailureClassesAreHonoured) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_size = 2,
                         .minimum_number_of_calls = 2,
                         .failure_outcomes = {OutcomeClass::kPermanent},
                         .ignored_outcomes = {OutcomeClass::kTransient}});
  cb->OnResult(OutcomeClass::kTransient, 1ms, clock.Now());
  cb->OnResult(OutcomeClass::kOverloaded, 1ms, clock.Now());
  cb->OnResult(OutcomeClass::kPermanent, 1ms, clock.Now());
  const WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.calls, 2);
  EXPECT_EQ(m.failures, 1);
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
}

TEST(CircuitBreakerTest, ResultsArrivingWhileOpenAreNotRecorded) {
  ManualClock clock;
  auto cb = MakeBreaker({.window_size = 2, .minimum_number_of_calls = 2});
  cb->OnResult(kFail, 1ms, clock.Now());
  cb->OnResult(kOk, 1ms, clock.Now());
  ASSERT_EQ(cb->state(), CircuitState::kOpen);
  cb->OnResult(kOk, 1ms, clock.Now());  // a call permitted before the trip
  const WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.failures, 1);  // the window that tripped it, unchanged
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
}

TEST(CircuitBreakerTest, TransitionToTheCurrentStateEmitsNothing) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 4, .minimum_number_of_calls = 4, .listener = &events});
  cb->OnResult(kFail, 1ms, clock.Now());
  cb->TransitionToClosed(clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 1);  // nothing happened
  cb->TransitionToForcedOpen(clock.Now());
  cb->TransitionToForcedOpen(clock.Now());
  cb->TransitionToOpen(clock.Now());
  cb->TransitionToOpen(clock.Now());
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->forced_open", "forced_open->open"));
}

TEST(CircuitBreakerTest, ResetClosesFromAnyStateAndClearsTheWindow) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 4, .minimum_number_of_calls = 4, .listener = &events});
  cb->OnResult(kFail, 1ms, clock.Now());
  cb->Reset(clock.Now());  // already closed: cleared, no event
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);
  EXPECT_TRUE(events.Transitions().empty());
  cb->TransitionToOpen(clock.Now());
  cb->Reset(clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->closed"));
}

TEST(CircuitBreakerTest, StateAndTransitionNames) {
  EXPECT_EQ(CircuitStateName(CircuitState::kHalfOpen), "half_open");
  EXPECT_EQ(CircuitStateName(CircuitState::kMetricsOnly), "metrics_only");
  EXPECT_EQ(CircuitTransitionName(CircuitState::kClosed, CircuitState::kOpen), "closed->open");
  EXPECT_EQ(CircuitTransitionName(CircuitState::kMetricsOnly, CircuitState::kForcedOpen), "metrics_only->forced_open");
}

}  // namespace
}  // namespace stormguard
