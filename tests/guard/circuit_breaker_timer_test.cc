// The automatic open -> half-open transition on a timer of a TimerService:
// it moves the circuit with no call, and a breaker that leaves open first,
// or goes away, leaves no timer that could touch it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "guard/circuit_breaker_test_util.h"
#include "stormguard/core/clock.h"
#include "stormguard/exec/timer_service.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::MakeBreaker;
using ::stormguard::testkit::RecordingListener;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Timers fire only in RunDue, on the test's thread, at the manual clock's time.
struct TimerBreakerTest : ::testing::Test {
  ManualClock clock;
  std::shared_ptr<TimerService> timers = TimerService::Create(clock, {.background_thread = false}).value();

  // Opens on its first failure, half-opens 10 s later by itself, for one trial.
  CircuitBreakerOptions Automatic(Listener* listener = nullptr) {
    return {.window_size = 1,
            .minimum_number_of_calls = 1,
            .wait_in_open = 10s,
            .permitted_calls_in_half_open = 1,
            .automatic_transition_from_open_to_half_open = true,
            .listener = listener,
            .timers = timers.get()};
  }
  void Trip(CircuitBreaker& cb) {
    cb.OnResult(OutcomeClass::kTransient, 1ms, clock.Now());
    ASSERT_EQ(cb.state(), CircuitState::kOpen);
  }
  // Moves the clock and fires what is due; returns how many fired.
  std::size_t AdvanceAndFire(Duration d) {
    clock.Advance(d);
    return timers->RunDue();
  }
};

TEST_F(TimerBreakerTest, HalfOpensWhenTheWaitEndsWithNoCall) {
  RecordingListener events;
  auto cb = MakeBreaker(Automatic(&events));
  Trip(*cb);
  EXPECT_EQ(timers->armed(), 1U);
  EXPECT_EQ(AdvanceAndFire(9s), 0U);
  EXPECT_EQ(cb->state(), CircuitState::kOpen);
  EXPECT_EQ(AdvanceAndFire(1s), 1U);
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
  EXPECT_THAT(events.Transitions(), ElementsAre("closed->open", "open->half_open"));
  EXPECT_EQ(events.events().back().at, clock.Now());
  EXPECT_EQ(timers->armed(), 0U);
}

TEST_F(TimerBreakerTest, EachOpenPeriodArmsItsOwnTimer) {
  auto cb = MakeBreaker(Automatic());
  Trip(*cb);
  AdvanceAndFire(10s);
  ASSERT_EQ(cb->state(), CircuitState::kHalfOpen);
  ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
  cb->OnResult(OutcomeClass::kTransient, 1ms, clock.Now());  // the trial fails: open again
  ASSERT_EQ(cb->state(), CircuitState::kOpen);
  EXPECT_EQ(AdvanceAndFire(10s), 1U);
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
}

TEST_F(TimerBreakerTest, LeavingOpenFirstDisarmsTheTimer) {
  auto cb = MakeBreaker(Automatic());
  Trip(*cb);
  ASSERT_TRUE(cb->TransitionToClosed(clock.Now()).ok());
  EXPECT_EQ(timers->armed(), 0U);
  EXPECT_EQ(AdvanceAndFire(1h), 0U);
  EXPECT_EQ(cb->state(), CircuitState::kClosed);
}

TEST_F(TimerBreakerTest, ACallAfterTheWaitHalfOpensFirstAndDisarmsTheTimer) {
  auto cb = MakeBreaker(Automatic());
  Trip(*cb);
  clock.Advance(10s);
  ASSERT_TRUE(cb->TryAcquirePermission(clock.Now()));
  EXPECT_EQ(cb->state(), CircuitState::kHalfOpen);
  EXPECT_EQ(timers->armed(), 0U);
  EXPECT_EQ(timers->RunDue(), 0U);
}

TEST_F(TimerBreakerTest, ADestroyedBreakerLeavesNoTimerBehind) {
  auto cb = MakeBreaker(Automatic());
  Trip(*cb);
  ASSERT_EQ(timers->armed(), 1U);
  cb.reset();
  EXPECT_EQ(timers->armed(), 0U);
  EXPECT_EQ(AdvanceAndFire(1h), 0U);
}

// The listener drops the only other reference while the timer moves the
// circuit: the timer's own reference is the last, and the breaker goes
// when the timer is done with it.
TEST_F(TimerBreakerTest, ATimerHoldingTheLastReferenceEndsTheBreakerSafely) {
  struct DropOnHalfOpen final : Listener {
    std::shared_ptr<CircuitBreaker> held;
    void OnEvent(const Event& e) noexcept override {
      if (e.kind == EventKind::kStateChanged && e.to_state == static_cast<std::uint8_t>(CircuitState::kHalfOpen)) {
        held.reset();
      }
    }
  } dropper;
  dropper.held = MakeBreaker(Automatic(&dropper));
  Trip(*dropper.held);
  EXPECT_EQ(AdvanceAndFire(10s), 1U);
  EXPECT_EQ(dropper.held, nullptr);
  EXPECT_EQ(timers->armed(), 0U);
}

TEST_F(TimerBreakerTest, TheAutomaticTransitionNeedsTimers) {
  CircuitBreakerOptions o = Automatic();
  o.timers = nullptr;
  auto made = CircuitBreaker::Create(o);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(made.status().message(), HasSubstr("automatic_transition_from_open_to_half_open: needs options.timers"));
  EXPECT_TRUE(o.Validate().empty()) << "options read from a file are valid without timers";
}

}  // namespace
}  // namespace stormguard
