#include "stormguard/metrics/metrics_listener.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <string>
#include <thread>

#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

Event Ev(EventKind kind, PolicyId policy, std::string_view reason = {}, int attempt = 1,
         OutcomeClass outcome = OutcomeClass::kSuccess, Duration d = Duration::zero()) {
  return Event{.kind = kind, .policy = policy, .reason = reason, .attempt = attempt, .outcome = outcome, .duration = d};
}

constexpr std::string_view kNoOverflow =
    "# HELP stormguard_metrics_overflow_total Events, instances and watches dropped past the cap.\n"
    "# TYPE stormguard_metrics_overflow_total counter\n"
    "stormguard_metrics_overflow_total 0\n";

TEST(MetricsListenerTest, EmptyScrapeHasOnlyTheOverflowCounter) {
  MetricsListener m;
  EXPECT_EQ(m.Scrape(), kNoOverflow);
}

TEST(MetricsListenerTest, AttemptsByOutcomeAndLatencyHistogram) {
  MetricsListener m;
  Listener& l = m.For("pay");
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kPipeline, {}, 1, OutcomeClass::kSuccess, 3ms));
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kPipeline, {}, 1, OutcomeClass::kSuccess, 1ms));  // le is inclusive
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kPipeline, {}, 2, OutcomeClass::kTransient, 20s));
  l.OnEvent(Ev(EventKind::kAttemptStarted, PolicyId::kPipeline));  // not counted
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_attempts_total Attempts that reached the call, by outcome.\n"
            "# TYPE stormguard_attempts_total counter\n"
            "stormguard_attempts_total{name=\"pay\",outcome=\"success\"} 2\n"
            "stormguard_attempts_total{name=\"pay\",outcome=\"transient\"} 1\n"
            "# HELP stormguard_attempt_duration_seconds Latency of attempts that reached the call.\n"
            "# TYPE stormguard_attempt_duration_seconds histogram\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.0005\"} 0\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.001\"} 1\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.0025\"} 1\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.005\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.01\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.025\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.05\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.1\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.25\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"0.5\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"1\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"2.5\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"5\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"10\"} 2\n"
            "stormguard_attempt_duration_seconds_bucket{name=\"pay\",le=\"+Inf\"} 3\n"
            "stormguard_attempt_duration_seconds_sum{name=\"pay\"} 20.004\n"
            "stormguard_attempt_duration_seconds_count{name=\"pay\"} 3\n" +
                std::string(kNoOverflow));
}

TEST(MetricsListenerTest, RetryCallsRetriesStopsAndBudgetRefusals) {
  MetricsListener m;
  Listener& l = m.For("r");
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kRetry, {}, 1, OutcomeClass::kSuccess));
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kRetry, {}, 1, OutcomeClass::kTransient));
  l.OnEvent(Ev(EventKind::kRetryScheduled, PolicyId::kRetry, {}, 1, OutcomeClass::kTransient));
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kRetry, {}, 2, OutcomeClass::kSuccess));
  l.OnEvent(Ev(EventKind::kGaveUp, PolicyId::kRetry, "not_retryable", 1, OutcomeClass::kPermanent));
  l.OnEvent(Ev(EventKind::kGaveUp, PolicyId::kRetry, "budget_exhausted", 2, OutcomeClass::kTransient));
  l.OnEvent(Ev(EventKind::kGaveUp, PolicyId::kRetry, "something_new", 3, OutcomeClass::kTransient));
  l.OnEvent(Ev(EventKind::kGaveUp, PolicyId::kHedge, "budget_exhausted", 0, OutcomeClass::kTransient));
  const std::string text = m.Scrape();
  // The retry stage reports its attempts' ends: they are the attempts.
  EXPECT_NE(text.find("stormguard_attempts_total{name=\"r\",outcome=\"success\"} 2\n"
                      "stormguard_attempts_total{name=\"r\",outcome=\"transient\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(text.substr(text.find("# HELP stormguard_retry_calls_total")),
            "# HELP stormguard_retry_calls_total Calls through the retry policy, by how they ended.\n"
            "# TYPE stormguard_retry_calls_total counter\n"
            "stormguard_retry_calls_total{name=\"r\",kind=\"successful_without_retry\"} 1\n"
            "stormguard_retry_calls_total{name=\"r\",kind=\"successful_with_retry\"} 1\n"
            "stormguard_retry_calls_total{name=\"r\",kind=\"failed_without_retry\"} 1\n"
            "stormguard_retry_calls_total{name=\"r\",kind=\"failed_with_retry\"} 2\n"
            "# HELP stormguard_retry_retries_total Retries scheduled.\n"
            "# TYPE stormguard_retry_retries_total counter\n"
            "stormguard_retry_retries_total{name=\"r\"} 1\n"
            "# HELP stormguard_retry_stops_total Retry policy stops other than success, by reason.\n"
            "# TYPE stormguard_retry_stops_total counter\n"
            "stormguard_retry_stops_total{name=\"r\",reason=\"not_retryable\"} 1\n"
            "stormguard_retry_stops_total{name=\"r\",reason=\"budget_exhausted\"} 1\n"
            "stormguard_retry_stops_total{name=\"r\",reason=\"other\"} 1\n"
            "# HELP stormguard_budget_refusals_total Retries and hedges a budget refused.\n"
            "# TYPE stormguard_budget_refusals_total counter\n"
            "stormguard_budget_refusals_total{name=\"r\",policy=\"retry\"} 1\n"
            "stormguard_budget_refusals_total{name=\"r\",policy=\"hedge\"} 1\n" +
                std::string(kNoOverflow));
}

// Whoever reports an attempt's end (the pipeline, or its retry or hedge
// stage in its place) counts it; a breaker's own report does not.
TEST(MetricsListenerTest, AttemptsCountWhoeverReportsThem) {
  MetricsListener m;
  Listener& l = m.For("h");
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kHedge, {}, 1, OutcomeClass::kCancelled, 2ms));
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kCircuitBreaker, {}, 1, OutcomeClass::kSuccess, 2ms));
  l.OnEvent(Ev(EventKind::kAttemptEnded, PolicyId::kTimeLimiter, "abandoned_work_ended", 1, OutcomeClass::kSuccess));
  const std::string text = m.Scrape();
  EXPECT_NE(text.find("stormguard_attempts_total{name=\"h\",outcome=\"cancelled\"} 1\n# HELP"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stormguard_attempt_duration_seconds_count{name=\"h\"} 1\n"), std::string::npos) << text;
}

// The gauge exists before any call: the breaker reports its first state
// when the builder creates it, and that is no transition.
TEST(MetricsListenerTest, ABuiltPipelinesBreakerGaugeIsClosedBeforeAnyCall) {
  MetricsListener m;
  auto pipeline = PipelineBuilder({.listener = &m.For("b")}).AddCircuitBreaker({}).Build();
  ASSERT_TRUE(pipeline.ok());
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_circuitbreaker_state 1 for the circuit breaker's current state, 0 for the others.\n"
            "# TYPE stormguard_circuitbreaker_state gauge\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"closed\"} 1\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"open\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"half_open\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"forced_open\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"disabled\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"metrics_only\"} 0\n" +
                std::string(kNoOverflow));
}

// The breaker's state families are its own, registered by its first Create
// (src/guard/circuit_breaker_metrics.cc): after the listener's own families.
TEST(MetricsListenerTest, BreakerStateGaugeTransitionsAndRefusals) {
  MetricsListener m;
  Listener& l = m.For("b");
  auto cb = CircuitBreaker::Create({.listener = &l});
  ASSERT_TRUE(cb.ok());
  const TimePoint now = TimePoint(1h);
  ASSERT_TRUE((*cb)->TransitionToOpen(now).ok());
  EXPECT_FALSE((*cb)->Acquire(now).ok());
  ASSERT_TRUE((*cb)->TransitionToHalfOpen(now).ok());
  // Neither moves the gauge: another policy's state event, a state the breaker has no name for.
  l.OnEvent(Event{.kind = EventKind::kStateChanged, .policy = PolicyId::kAdaptiveConcurrency, .to_state = 0});
  l.OnEvent(Event{.kind = EventKind::kStateChanged, .policy = PolicyId::kCircuitBreaker, .to_state = 6});
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_circuitbreaker_not_permitted_calls_total Calls the circuit breaker refused.\n"
            "# TYPE stormguard_circuitbreaker_not_permitted_calls_total counter\n"
            "stormguard_circuitbreaker_not_permitted_calls_total{name=\"b\"} 1\n"
            "# HELP stormguard_circuitbreaker_state 1 for the circuit breaker's current state, 0 for the others.\n"
            "# TYPE stormguard_circuitbreaker_state gauge\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"closed\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"open\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"half_open\"} 1\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"forced_open\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"disabled\"} 0\n"
            "stormguard_circuitbreaker_state{name=\"b\",state=\"metrics_only\"} 0\n"
            "# HELP stormguard_circuitbreaker_transitions_total Circuit breaker transitions, by the state entered.\n"
            "# TYPE stormguard_circuitbreaker_transitions_total counter\n"
            "stormguard_circuitbreaker_transitions_total{name=\"b\",state=\"open\"} 1\n"
            "stormguard_circuitbreaker_transitions_total{name=\"b\",state=\"half_open\"} 1\n" +
                std::string(kNoOverflow));
}

// The gauge follows the typed state alone: the event's words are for people.
TEST(MetricsListenerTest, TheBreakerGaugeReadsTheTypedStateNotTheReason) {
  ASSERT_TRUE(CircuitBreaker::Create({}).ok());  // registers the breaker's families
  MetricsListener m;
  m.For("b").OnEvent(Event{.kind = EventKind::kStateChanged,
                           .policy = PolicyId::kCircuitBreaker,
                           .from_state = static_cast<std::uint8_t>(CircuitState::kClosed),
                           .to_state = static_cast<std::uint8_t>(CircuitState::kForcedOpen),
                           .reason = "closed->open"});
  const std::string text = m.Scrape();
  EXPECT_NE(text.find("stormguard_circuitbreaker_state{name=\"b\",state=\"forced_open\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stormguard_circuitbreaker_transitions_total{name=\"b\",state=\"forced_open\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("state=\"open\"} 1"), std::string::npos) << text;
}

TEST(MetricsListenerTest, RejectionsTimeoutsHedgesFallbacksAbandoned) {
  MetricsListener m;
  Listener& l = m.For("g");
  l.OnEvent(Ev(EventKind::kRejected, PolicyId::kBulkhead, "bulkhead full"));
  l.OnEvent(Ev(EventKind::kRejected, PolicyId::kRateLimiter, "rate limit exceeded"));
  l.OnEvent(Ev(EventKind::kRejected, PolicyId::kRateLimiter, "rate limit exceeded"));
  l.OnEvent(Ev(EventKind::kRejected, PolicyId::kAttemptTimeout, "deadline_expired"));
  l.OnEvent(Ev(EventKind::kRejected, PolicyId::kIdempotencyKey, "missing_key"));
  l.OnEvent(Ev(EventKind::kTimedOut, PolicyId::kTimeout, "deadline"));
  l.OnEvent(Ev(EventKind::kHedgeLaunched, PolicyId::kHedge));
  l.OnEvent(Ev(EventKind::kHedgeLaunched, PolicyId::kHedge));
  l.OnEvent(Ev(EventKind::kHedgeWon, PolicyId::kHedge));
  l.OnEvent(Ev(EventKind::kFallback, PolicyId::kFallback, "unavailable"));
  l.OnEvent(Ev(EventKind::kAbandoned, PolicyId::kTimeout, "ignored_stop"));
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_rejected_calls_total Calls other guards refused, by policy.\n"
            "# TYPE stormguard_rejected_calls_total counter\n"
            "stormguard_rejected_calls_total{name=\"g\",policy=\"bulkhead\"} 1\n"
            "stormguard_rejected_calls_total{name=\"g\",policy=\"rate_limiter\"} 2\n"
            "stormguard_rejected_calls_total{name=\"g\",policy=\"timeout\"} 1\n"
            "stormguard_rejected_calls_total{name=\"g\",policy=\"other\"} 1\n"
            "# HELP stormguard_timeouts_total Timeouts that fired.\n"
            "# TYPE stormguard_timeouts_total counter\n"
            "stormguard_timeouts_total{name=\"g\"} 1\n"
            "# HELP stormguard_hedges_sent_total Hedged attempts sent.\n"
            "# TYPE stormguard_hedges_sent_total counter\n"
            "stormguard_hedges_sent_total{name=\"g\"} 2\n"
            "# HELP stormguard_hedges_won_total Calls whose answer came from a hedged attempt.\n"
            "# TYPE stormguard_hedges_won_total counter\n"
            "stormguard_hedges_won_total{name=\"g\"} 1\n"
            "# HELP stormguard_fallbacks_total Results a fallback produced.\n"
            "# TYPE stormguard_fallbacks_total counter\n"
            "stormguard_fallbacks_total{name=\"g\"} 1\n"
            "# HELP stormguard_abandoned_attempts_total Attempts left running past their timeout.\n"
            "# TYPE stormguard_abandoned_attempts_total counter\n"
            "stormguard_abandoned_attempts_total{name=\"g\"} 1\n" +
                std::string(kNoOverflow));
}

TEST(MetricsListenerTest, WatchesAreReadAtScrapeTime) {
  MetricsListener m;
  int in_use = 3;
  ASSERT_TRUE(m.Watch("db", Watched::kBulkheadInUse, [&] { return static_cast<double>(in_use); }));
  ASSERT_TRUE(m.Watch("db", Watched::kBulkheadLimit, [] { return 10.0; }));
  ASSERT_TRUE(m.Watch("db", Watched::kAdaptiveLimit, [] { return std::numeric_limits<double>::quiet_NaN(); }));
  ASSERT_TRUE(m.Watch("db", Watched::kBudgetTokens, [] { return 2.5; }));
  ASSERT_TRUE(m.Watch("cfg", Watched::kReloadsAccepted, [] { return 4.0; }));
  ASSERT_TRUE(m.Watch("cfg", Watched::kReloadsRejected, [] { return 1.0; }));
  ASSERT_TRUE(m.Watch("timers", Watched::kTimerSlowCallbacks, [] { return 2.0; }));
  in_use = 7;
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_bulkhead_concurrent_calls Calls holding a bulkhead slot.\n"
            "# TYPE stormguard_bulkhead_concurrent_calls gauge\n"
            "stormguard_bulkhead_concurrent_calls{name=\"db\"} 7\n"
            "# HELP stormguard_bulkhead_max_allowed_concurrent_calls The bulkhead's slots.\n"
            "# TYPE stormguard_bulkhead_max_allowed_concurrent_calls gauge\n"
            "stormguard_bulkhead_max_allowed_concurrent_calls{name=\"db\"} 10\n"
            "# HELP stormguard_adaptive_concurrency_limit The adaptive concurrency limit.\n"
            "# TYPE stormguard_adaptive_concurrency_limit gauge\n"
            "stormguard_adaptive_concurrency_limit{name=\"db\"} NaN\n"
            "# HELP stormguard_retry_budget_tokens Tokens left in the retry budget.\n"
            "# TYPE stormguard_retry_budget_tokens gauge\n"
            "stormguard_retry_budget_tokens{name=\"db\"} 2.5\n"
            "# HELP stormguard_config_reloads_accepted_total Configurations applied.\n"
            "# TYPE stormguard_config_reloads_accepted_total counter\n"
            "stormguard_config_reloads_accepted_total{name=\"cfg\"} 4\n"
            "# HELP stormguard_config_reloads_rejected_total Configurations refused.\n"
            "# TYPE stormguard_config_reloads_rejected_total counter\n"
            "stormguard_config_reloads_rejected_total{name=\"cfg\"} 1\n"
            "# HELP stormguard_timer_slow_callbacks_total Timer callbacks that ran past the timer service's bound, "
            "holding up its other timers.\n"
            "# TYPE stormguard_timer_slow_callbacks_total counter\n"
            "stormguard_timer_slow_callbacks_total{name=\"timers\"} 2\n" +
                std::string(kNoOverflow));
}

TEST(MetricsListenerTest, RoutesByScopeAndKeepsInstancesApart) {
  MetricsListener m;
  Event a = Ev(EventKind::kTimedOut, PolicyId::kTimeout);
  a.scope = "a";
  Event b = a;
  b.scope = "b";
  m.OnEvent(a);
  m.OnEvent(b);
  m.OnEvent(b);
  m.For("a").OnEvent(Ev(EventKind::kTimedOut, PolicyId::kTimeout));  // the same instance as scope "a"
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_timeouts_total Timeouts that fired.\n"
            "# TYPE stormguard_timeouts_total counter\n"
            "stormguard_timeouts_total{name=\"a\"} 2\n"
            "stormguard_timeouts_total{name=\"b\"} 2\n" +
                std::string(kNoOverflow));
}

TEST(MetricsListenerTest, HostileNamesAreEscaped) {
  MetricsListener m;
  m.For("a\"b\\c\nd\x01\xff}").OnEvent(Ev(EventKind::kFallback, PolicyId::kFallback));
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_fallbacks_total Results a fallback produced.\n"
            "# TYPE stormguard_fallbacks_total counter\n"
            "stormguard_fallbacks_total{name=\"a\\\"b\\\\x5cc\\nd\\\\x01\\\\xff}\"} 1\n" +
                std::string(kNoOverflow));
}

TEST(MetricsListenerTest, InstancesAndWatchesPastTheCapAreCountedNotKept) {
  MetricsListener m(2);
  m.For("a").OnEvent(Ev(EventKind::kFallback, PolicyId::kFallback));
  m.For("b").OnEvent(Ev(EventKind::kFallback, PolicyId::kFallback));
  Listener& c = m.For("c");                                  // past the cap: 1
  c.OnEvent(Ev(EventKind::kFallback, PolicyId::kFallback));  // 2
  Event scoped = Ev(EventKind::kFallback, PolicyId::kFallback);
  scoped.scope = "d";
  m.OnEvent(scoped);  // 3
  EXPECT_TRUE(m.Watch("a", Watched::kBulkheadLimit, [] { return 1.0; }));
  EXPECT_TRUE(m.Watch("b", Watched::kBulkheadLimit, [] { return 1.0; }));
  EXPECT_FALSE(m.Watch("c", Watched::kBulkheadLimit, [] { return 1.0; }));  // 4
  EXPECT_EQ(m.Scrape(),
            "# HELP stormguard_fallbacks_total Results a fallback produced.\n"
            "# TYPE stormguard_fallbacks_total counter\n"
            "stormguard_fallbacks_total{name=\"a\"} 1\n"
            "stormguard_fallbacks_total{name=\"b\"} 1\n"
            "# HELP stormguard_bulkhead_max_allowed_concurrent_calls The bulkhead's slots.\n"
            "# TYPE stormguard_bulkhead_max_allowed_concurrent_calls gauge\n"
            "stormguard_bulkhead_max_allowed_concurrent_calls{name=\"a\"} 1\n"
            "stormguard_bulkhead_max_allowed_concurrent_calls{name=\"b\"} 1\n"
            "# HELP stormguard_metrics_overflow_total Events, instances and watches dropped past the cap.\n"
            "# TYPE stormguard_metrics_overflow_total counter\n"
            "stormguard_metrics_overflow_total 4\n");
}

// Under TSan: two threads record (one through a bound listener, one routed
// by scope) while this one scrapes; every event is counted once.
TEST(MetricsListenerTest, RecordsFromTwoThreadsWhileScraping) {
  MetricsListener m;
  constexpr int kEvents = 20'000;
  std::atomic<int> done{0};
  auto record = [&](bool routed) {
    Event e = Ev(EventKind::kAttemptEnded, PolicyId::kPipeline, {}, 1, OutcomeClass::kSuccess, 2ms);
    e.scope = "s";
    for (int i = 0; i < kEvents; ++i) routed ? m.OnEvent(e) : m.For("s").OnEvent(e);
    done.fetch_add(1);
  };
  std::thread a(record, false);
  std::thread b(record, true);
  while (done.load() < 2) {  // ends with the recorders
    EXPECT_NE(m.Scrape().find("stormguard_metrics_overflow_total 0"), std::string::npos);
  }
  a.join();
  b.join();
  EXPECT_NE(m.Scrape().find("stormguard_attempt_duration_seconds_count{name=\"s\"} 40000\n"), std::string::npos);
  EXPECT_NE(m.Scrape().find("stormguard_attempt_duration_seconds_sum{name=\"s\"} 80\n"), std::string::npos);
}

}  // namespace
}  // namespace stormguard
