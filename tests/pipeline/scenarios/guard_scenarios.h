// The guard scenarios, run by every driver as pipeline_scenarios.h's are:
// a guard decides the same way whichever driver waits for it. Here, the
// circuit breaker's timing of an attempt, which both stage forms take from
// one rule (circuit_breaker_stage.h): with a coarse clock that lags the
// precise one, a form that read another clock than the rule says would
// record other latencies, and so other slow calls.
#pragma once

#include "pipeline/scenarios/pipeline_scenarios.h"
#include "testkit/recording_listener.h"

namespace stormguard::testkit {

template <class Driver>
class GuardScenarios : public PipelineScenarios<Driver> {
 protected:
  // A breaker that times coarsely (slow_call_duration >= 500ms) and never
  // trips here: it only counts slow calls.
  static std::shared_ptr<CircuitBreaker> CoarseBreaker() {
    return std::shared_ptr<CircuitBreaker>(Unwrap(CircuitBreaker::Create({.slow_call_rate_threshold = 1.0,
                                                                          .slow_call_duration = 500ms,
                                                                          .window_size = 20,
                                                                          .minimum_number_of_calls = 20})));
  }
  // Seven calls of `takes` each, 1 ms apart: their starts fall on every
  // phase of a 7 ms coarse tick. Returns the slow calls the breaker counted.
  std::int64_t SlowCalls(const PipelineRef& p, const CircuitBreaker& breaker, Duration takes) {
    for (int i = 0; i < 7; ++i) {
      EXPECT_TRUE(this->Run(p, {{takes}}).result.ok());
      this->driver.clock().Idle(1ms);
    }
    return breaker.metrics(this->driver.clock().Now()).slow_calls;
  }
};

TYPED_TEST_SUITE_P(GuardScenarios);

// Without a listener: the attempt starts at the pass's precise reading
// (the timeout outside took one) and ends at the coarse clock, never after
// the precise end, so a call of exactly the slow-call duration is never
// slow. A form that started at the coarse clock instead would time 504 ms
// for three of the seven phases.
TYPED_TEST_P(GuardScenarios, TheBreakerStartsAnAttemptAtThePassReading) {
  this->driver.clock().set_coarse_tick(7ms);
  auto breaker = this->CoarseBreaker();
  PipelineRef p = Unwrap(this->Builder().AddTimeout(10s).AddCircuitBreaker(breaker).Build());
  EXPECT_EQ(this->SlowCalls(p, *breaker, 500ms), 0);
}

// Alone, the breaker has no pass reading to share: both ends are coarse.
TYPED_TEST_P(GuardScenarios, TheBreakerAloneTimesOnTheCoarseClock) {
  this->driver.clock().set_coarse_tick(7ms);
  auto breaker = this->CoarseBreaker();
  PipelineRef p = Unwrap(this->Builder().AddCircuitBreaker(breaker).Build());
  EXPECT_EQ(this->SlowCalls(p, *breaker, 500ms), 3);  // the phases where the coarse span is 504 ms
}

// A listener that times every attempt makes the pipeline read the precise
// clock right after the call; the breaker ends the attempt there, so every
// call of 501 ms is slow (at the coarse clock, one in seven would be).
TYPED_TEST_P(GuardScenarios, TheBreakerEndsAnAttemptAtThePipelinesReadingAfterTheCall) {
  this->driver.clock().set_coarse_tick(7ms);
  RecordingListener listener;
  auto breaker = this->CoarseBreaker();
  PipelineRef p = Unwrap(this->Builder(&listener).AddTimeout(10s).AddCircuitBreaker(breaker).Build());
  EXPECT_EQ(this->SlowCalls(p, *breaker, 501ms), 7);
  EXPECT_EQ(listener.Count(EventKind::kAttemptEnded), 7);
}

// Below 500 ms the breaker times precisely, whatever the coarse clock says.
TYPED_TEST_P(GuardScenarios, AFineBreakerTimesOnThePreciseClock) {
  this->driver.clock().set_coarse_tick(7ms);
  auto breaker = std::shared_ptr<CircuitBreaker>(Unwrap(CircuitBreaker::Create({.slow_call_rate_threshold = 1.0,
                                                                                .slow_call_duration = 100ms,
                                                                                .window_size = 20,
                                                                                .minimum_number_of_calls = 20})));
  PipelineRef p = Unwrap(this->Builder().AddCircuitBreaker(breaker).Build());
  EXPECT_EQ(this->SlowCalls(p, *breaker, 100ms), 0);
  EXPECT_EQ(this->SlowCalls(p, *breaker, 101ms), 7);
}

REGISTER_TYPED_TEST_SUITE_P(GuardScenarios, TheBreakerStartsAnAttemptAtThePassReading,
                            TheBreakerAloneTimesOnTheCoarseClock,
                            TheBreakerEndsAnAttemptAtThePipelinesReadingAfterTheCall,
                            AFineBreakerTimesOnThePreciseClock);

}  // namespace stormguard::testkit
