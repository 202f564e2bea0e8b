// Half-open trials, timed transitions, backoff-based waits and the special
// states (forced open, disabled, metrics only).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "guard/circuit_breaker_test_util.h"
#include "stormguard/core/clock.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::MakeBreaker;
using ::stormguard::testkit::RecordingListener;
using ::testing::ElementsAre;

using testkit::kFail;
using testkit::kOk;

// A breaker that opens on its first failure and half-opens 10 s later with
// `trials` trial calls.
CircuitBreakerOptions Trials(int trials, Listener* listener) {
  return {.window_size = 1,
          .minimum_number_of_calls = 1,
          .wait_in_open = 10s,
          .permitted_calls_in_half_open = trials,
          .listener = listener};
}

void Trip(CircuitBreaker& cb, ManualClock& clock) {
  cb.OnResult(kFail, 1ms, clock.Now());
  ASSERT_EQ(cb.state(), CircuitState::kOpen);
}

void TripAndHalfOpen(CircuitBreaker& cb, ManualClock& clock) {
  Trip(cb, clock);
  clock.Advance(10s);
  ASSERT_TRUE(cb.TransitionToHalfOpen(clock.Now()).ok());
}

int Acquired(CircuitBreaker& cb, TimePoint now, int attempts) {
  int n = 0;
  for (int i = 0; i < attempts; ++i) n += cb.TryAcquirePermission(now) ? 1 : 0;
  return n;
}

TEST(CircuitBreakerHalfOpenTest, PermitsOnlyTheTrialCallsAndReleaseGivesThemBack) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker(Trials(3, &events));
  TripAndHalfOpen(*cb, clock);
  EXPECT_EQ(Acquired(*cb, clock.Now(), 5), 3);
  EXPECT_THAT(events.Reasons(EventKind::kRejected),
              ElementsAre("circuit half-open: no trial permits left", "circuit half-open: no trial permits left"));
  const Status s = cb->Acquire(clock.Now());
  EXPECT_EQ(s.message(), "circuit half-open; all 3 trial calls are in flight");
  EXPECT_EQ(s.source(), "circuit_breaker");

  cb->ReleasePermission();  // one trial never ran
  EXPECT_EQ(Acquired(*cb, clock.Now(), 2), 1);
  cb->OnResult(OutcomeClass::kCancelled, 1ms, clock.Now());  // ignored: permit back too
  EXPECT_EQ(Acquired(*cb, clock.Now(), 2), 1);
  // Releasing more than was taken never creates extra trials.
  for (int i = 0; i < 10; ++i) cb->ReleasePermission();
  EXPECT_EQ(Acquired(*cb, clock.Now(), 10), 3);
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
}

TEST(CircuitBreakerHalfOpenTest, SuccessfulTrialsCloseWithAFreshWindow) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker(Trials(3, &events));
  TripAndHalfOpen(*cb, clock);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
  cb->OnResult(kOk, 1ms, clock.Now());
  cb->OnResult(kFail, 1ms, clock.Now());            // 1 of 3 failed: 33% < 50%
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);  // waits for every trial
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 2);     // the trial window
  EXPECT_FALSE(cb->metrics(clock.Now()).failure_rate.has_value());
  cb->OnResult(kOk, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->half_open", "half_open->closed"));
}

TEST(CircuitBreakerHalfOpenTest, FailingTrialsReopen) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker(Trials(4, &events));
  TripAndHalfOpen(*cb, clock);
  for (OutcomeClass c : {kOk, kFail, kOk, kFail}) cb->OnResult(c, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kOpen);       // 50% >= 50%
  const WindowMetrics m = cb->metrics(clock.Now());  // the trials that reopened it
  EXPECT_EQ(m.calls, 4);
  EXPECT_EQ(m.failures, 2);
  EXPECT_DOUBLE_EQ(m.failure_rate.value_or(-1), 0.5);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->half_open", "half_open->open"));
  EXPECT_FALSE(cb->TryAcquirePermission(clock.Now() + 9s));
}

TEST(CircuitBreakerHalfOpenTest, SlowTrialsReopen) {
  ManualClock clock;
  auto cb = MakeBreaker(Trials(2, nullptr));
  TripAndHalfOpen(*cb, clock);
  cb->OnResult(kOk, 1ms, clock.Now());
  cb->OnResult(kOk, 5s, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
  EXPECT_EQ(cb->metrics(clock.Now()).slow_calls, 1);
}

TEST(CircuitBreakerHalfOpenTest, MaxWaitReopensATrialThatNeverEnds) {
  ManualClock clock;
  RecordingListener events;
  CircuitBreakerOptions o = Trials(2, &events);
  o.max_wait_in_half_open = 5s;
  auto cb = MakeBreaker(o);
  Trip(*cb, clock);
  clock.Advance(10s);
  ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));  // half-open; this trial hangs
  const TimePoint entered = clock.Now();
  EXPECT_EQ(cb->NextTick(), entered + 5s);
  EXPECT_TRUE(cb->TryAcquirePermission(entered + 4999ms));
  cb->Tick(entered + 4999ms);
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
  EXPECT_FALSE(cb->TryAcquirePermission(entered + 5s));
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->half_open", "half_open->open"));
}

TEST(CircuitBreakerHalfOpenTest, MaxWaitAlsoFiresOnTick) {
  ManualClock clock;
  CircuitBreakerOptions o = Trials(2, nullptr);
  o.max_wait_in_half_open = 5s;
  auto cb = MakeBreaker(o);
  TripAndHalfOpen(*cb, clock);
  cb->Tick(clock.Now() + 5s);
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
}

TEST(CircuitBreakerHalfOpenTest, WithoutMaxWaitHalfOpenWaitsForever) {
  ManualClock clock;
  auto cb = MakeBreaker(Trials(1, nullptr));
  TripAndHalfOpen(*cb, clock);
  ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
  EXPECT_EQ(cb->NextTick(), kInfiniteFuture);
  cb->Tick(clock.Now() + 24h);
  EXPECT_FALSE(cb->TryAcquirePermission(clock.Now() + 24h));
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
}

TEST(CircuitBreakerTimingTest, AutomaticTransitionHalfOpensOnTickWithoutACall) {
  ManualClock clock;
  auto timers = TimerService::Create(clock, {.background_thread = false}).value();
  RecordingListener events;
  CircuitBreakerOptions o = Trials(1, &events);
  o.automatic_transition_from_open_to_half_open = true;
  o.timers = timers.get();
  auto cb = MakeBreaker(o);
  Trip(*cb, clock);
  EXPECT_EQ(cb->NextTick(), clock.Now() + 10s);
  cb->Tick(clock.Now() + 9s);
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
  cb->Tick(clock.Now() + 10s);
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->half_open"));
  EXPECT_EQ(events.events().back().at, clock.Now() + 10s);
}

TEST(CircuitBreakerTimingTest, WithoutAutomaticTransitionOnlyACallHalfOpens) {
  ManualClock clock;
  auto cb = MakeBreaker(Trials(1, nullptr));
  Trip(*cb, clock);
  EXPECT_EQ(cb->NextTick(), kInfiniteFuture);
  cb->Tick(clock.Now() + 1h);
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
  EXPECT_TRUE(cb->TryAcquirePermission(clock.Now() + 1h));
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
}

// Base 1 s, doubling, capped at 8 s: each failed trial doubles the wait;
// a successful trial closes the circuit and the next trip starts at 1 s.
TEST(CircuitBreakerTimingTest, BackoffWaitGrowsAcrossConsecutiveOpens) {
  ManualClock clock;
  RecordingListener events;
  auto backoff = Backoff::Create({.kind = BackoffKind::kExponential, .base = 1s, .cap = 8s});
  ASSERT_TRUE(backoff.ok());
  CircuitBreakerOptions o = Trials(1, &events);
  o.wait_in_open_backoff = *backoff;
  auto cb = MakeBreaker(o);

  Trip(*cb, clock);
  std::vector<Duration> waits = {1s};
  for (Duration expected : {2s, 4s, 8s, 8s}) {
    const Duration wait = waits.back();
    EXPECT_FALSE(cb->TryAcquirePermission(clock.Now() + wait - 1ms));
    clock.Advance(wait);
    ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));  // the trial
    cb->OnResult(kFail, 1ms, clock.Now());               // fails: open again
    ASSERT_EQ(cb->state(), CircuitState::kOpen);
    waits.push_back(expected);
  }
  std::vector<Duration> announced;
  for (const Event& e : events.events()) {
    if (e.kind == EventKind::kStateChanged && e.to_state == static_cast<std::uint8_t>(CircuitState::kOpen)) {
      announced.push_back(e.duration);
    }
  }
  EXPECT_EQ(announced, waits);

  clock.Advance(8s);
  ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
  cb->OnResult(kOk, 1ms, clock.Now());
  ASSERT_EQ(cb->state(), CircuitState::kClosed);
  Trip(*cb, clock);
  EXPECT_EQ(events.events().back().duration, 1s);
}

TEST(CircuitBreakerSpecialStateTest, ForcedOpenRejectsEverythingUntilToldOtherwise) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker(Trials(1, &events));
  cb->TransitionToForcedOpen(clock.Now());
  cb->Tick(clock.Now() + 24h);
  EXPECT_FALSE(cb->TryAcquirePermission(clock.Now() + 24h));
  const Status s = cb->Acquire(clock.Now());
  EXPECT_EQ(s.message(), "circuit forced open");
  EXPECT_TRUE(s.hints().pushback_stop);
  EXPECT_EQ(s.source(), "circuit_breaker");
  cb->OnResult(kOk, 1ms, clock.Now());  // not recorded
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);
  EXPECT_EQ(cb->state(), CircuitState::kForcedOpen);

  cb->TransitionToClosed(clock.Now());
  EXPECT_TRUE(cb->TryAcquirePermission(clock.Now()));
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->forced_open", "forced_open->closed"));
  EXPECT_THAT(events.Reasons(EventKind::kRejected), ElementsAre("circuit forced open", "circuit forced open"));
}

TEST(CircuitBreakerSpecialStateTest, DisabledPermitsEverythingAndRecordsNothing) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker(Trials(1, &events));
  cb->OnResult(kOk, 1ms, clock.Now());
  cb->TransitionToDisabled(clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);  // cleared on entry
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
    cb->OnResult(kFail, 10s, clock.Now());
  }
  EXPECT_EQ(cb->state(), CircuitState::kDisabled);
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);
  EXPECT_EQ(events.events().size(), 2u);  // only its first state and the transition into disabled
  EXPECT_THAT(events.Reasons(EventKind::kStateReported), ElementsAre("closed"));
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->disabled"));
}

TEST(CircuitBreakerSpecialStateTest, MetricsOnlyRecordsAndReportsButNeverRejects) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 3, .minimum_number_of_calls = 3, .listener = &events});
  cb->TransitionToMetricsOnly(clock.Now());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
    cb->OnResult(i == 3 ? kOk : kFail, i == 3 ? 3s : 1ms, clock.Now());
  }
  EXPECT_EQ(cb->state(), CircuitState::kMetricsOnly);
  const WindowMetrics m = cb->metrics(clock.Now());
  EXPECT_EQ(m.calls, 3);
  EXPECT_EQ(m.failures, 2);
  EXPECT_EQ(m.slow_calls, 1);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->metrics_only"));
  EXPECT_THAT(events.Reasons(EventKind::kAttemptEnded),
              ElementsAre("recorded", "recorded", "threshold reached: failure_rate",
                          "threshold reached: failure_rate"));
  const Event last = events.events().back();
  EXPECT_EQ(last.outcome, kOk);
  EXPECT_EQ(last.duration, 3s);
  EXPECT_EQ(events.Count(EventKind::kRejected), 0);
}

TEST(CircuitBreakerSpecialStateTest, LeavingASpecialStateStartsClean) {
  ManualClock clock;
  RecordingListener events;
  auto cb = MakeBreaker({.window_size = 2, .minimum_number_of_calls = 2, .listener = &events});
  cb->TransitionToMetricsOnly(clock.Now());
  cb->OnResult(kFail, 1ms, clock.Now());
  cb->OnResult(kFail, 1ms, clock.Now());
  cb->TransitionToClosed(clock.Now());
  EXPECT_EQ(cb->metrics(clock.Now()).calls, 0);
  cb->OnResult(kFail, 1ms, clock.Now());
  EXPECT_EQ(cb->state(), CircuitState::kClosed);  // one call: below the minimum
  cb->TransitionToOpen(clock.Now());
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->metrics_only", "metrics_only->closed", "closed->open"));
}

TEST(CircuitBreakerStatesTest, PermitsEveryCallOnlyWhereAcquireNeverRefuses) {
  ManualClock clock;
  auto cb = MakeBreaker(Trials(1, nullptr));
  EXPECT_TRUE(cb->PermitsEveryCall());  // closed
  Trip(*cb, clock);
  EXPECT_FALSE(cb->PermitsEveryCall());  // open
  clock.Advance(10s);
  ASSERT_TRUE(cb->TransitionToHalfOpen(clock.Now()).ok());
  EXPECT_FALSE(cb->PermitsEveryCall());
  ASSERT_TRUE(cb->TransitionToForcedOpen(clock.Now()).ok());
  EXPECT_FALSE(cb->PermitsEveryCall());
  ASSERT_TRUE(cb->TransitionToDisabled(clock.Now()).ok());
  EXPECT_TRUE(cb->PermitsEveryCall());
  ASSERT_TRUE(cb->TransitionToMetricsOnly(clock.Now()).ok());
  EXPECT_TRUE(cb->PermitsEveryCall());
}

}  // namespace
}  // namespace stormguard
