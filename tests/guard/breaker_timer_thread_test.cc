// The timer thread never waits for user code: the breaker's automatic
// open -> half-open reports to the listener, and a listener that blocks
// there must not delay the other timers of the TimerService that moved it
// (testkit/timer_thread_probe.h).
#include <gtest/gtest.h>

#include "stormguard/exec/timer_service.h"
#include "stormguard/guard/circuit_breaker.h"
#include "testkit/timer_thread_probe.h"
#include "testkit/wait_until.h"

namespace stormguard::breaker_timer_thread_test {
namespace {
using namespace std::chrono_literals;

TEST(BreakerTimerThreadTest, ASlowListenerOfTheAutomaticHalfOpenDoesNotDelayOtherTimers) {
  Clock& clock = Clock::Real();
  testkit::StallingListener listener(EventKind::kStateChanged, static_cast<std::uint8_t>(CircuitState::kHalfOpen));
  std::shared_ptr<TimerService> timers = TimerService::Create(clock).value();
  auto breaker = CircuitBreaker::Create({.wait_in_open = 10ms,
                                         .automatic_transition_from_open_to_half_open = true,
                                         .listener = &listener,
                                         .timers = timers.get()})
                     .value();
  const TimePoint start = clock.Now();
  // Due after the breaker's timer fired and its listener began to stall.
  testkit::TimerProbe probe{.clock = clock, .due = start + 30ms};
  TimerHandle h = timers->Schedule(probe.due, &testkit::TimerProbe::Fire, &probe);
  ASSERT_TRUE(breaker->TransitionToOpen(start).ok());
  ASSERT_TRUE(testkit::WaitUntil([&] { return listener.stalled.load() == 1 && probe.fired(); },
                                 "the half-open and the probe timer"));
  EXPECT_EQ(breaker->state(), CircuitState::kHalfOpen);
  EXPECT_FALSE(TimerService::Cancel(h));
  EXPECT_LT(probe.Lateness(), testkit::kAllowedTimerLateness) << "late by " << probe.LatenessMs() << " ms";
}

}  // namespace
}  // namespace stormguard::breaker_timer_thread_test
