// /metrics over loopback, checked by Debian's promtool (package prometheus).
#include "stormguard/http/metrics_handler.h"

#include <gtest/gtest.h>

#include <string>

#include "promtool.h"
#include "stormguard/core/endpoint_state.h"
#include "stormguard/metrics/metric_family.h"
#include "stormguard/pipeline/pipeline.h"
#include "test_server.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

// A program's own policy with a registered family of each shape
// (stormguard/metrics/metric_family.h).
PolicyId RegisterValveFamilies() {
  const PolicyId valve = RegisterPolicyName("valve").value();
  const std::vector<std::string> positions = {"shut", "open"};
  const Status s = RegisterMetricFamilies({{.name = "stormguard_valve_admitted_total",
                                            .help = "Calls the valve let through.",
                                            .policy = valve,
                                            .kinds = {EventKind::kAdmitted}},
                                           {.name = "stormguard_valve_moves_total",
                                            .help = "Valve moves, by position entered.",
                                            .policy = valve,
                                            .kinds = {EventKind::kStateChanged},
                                            .state_label = "position",
                                            .state_names = positions},
                                           {.name = "stormguard_valve_position",
                                            .help = "1 for the valve's position, 0 for the other.",
                                            .type = MetricType::kStateGauge,
                                            .policy = valve,
                                            .kinds = {EventKind::kStateChanged},
                                            .state_label = "position",
                                            .state_names = positions}});
  EXPECT_TRUE(s.ok()) << s.message();
  return valve;
}

// Every family gets samples: events of every kind, a real pipeline's calls,
// watches, registered families, an instance with a hostile name, and
// overflow past the cap.
void Populate(MetricsListener& metrics) {
  Listener& inv = metrics.For("inventory");
  auto pipeline = PipelineBuilder({.listener = &inv}).AddRetry({.max_attempts = 3}).AddCircuitBreaker({}).Build();
  ASSERT_TRUE(pipeline.ok());
  CallContext ctx;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pipeline->Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
  auto ev = [&](EventKind kind, PolicyId policy, std::string_view reason, int attempt = 1) {
    inv.OnEvent(Event{.kind = kind,
                      .policy = policy,
                      .reason = reason,
                      .attempt = attempt,
                      .outcome = OutcomeClass::kTransient,
                      .duration = 30ms});
  };
  ev(EventKind::kAttemptEnded, PolicyId::kPipeline, {});
  ev(EventKind::kRetryScheduled, PolicyId::kRetry, {});
  ev(EventKind::kGaveUp, PolicyId::kRetry, "budget_exhausted", 2);
  ev(EventKind::kGaveUp, PolicyId::kHedge, "budget_exhausted");
  inv.OnEvent(Event{.kind = EventKind::kStateChanged,
                    .policy = PolicyId::kCircuitBreaker,
                    .from_state = static_cast<std::uint8_t>(CircuitState::kClosed),
                    .to_state = static_cast<std::uint8_t>(CircuitState::kOpen)});
  ev(EventKind::kRejected, PolicyId::kCircuitBreaker, "circuit open");
  ev(EventKind::kRejected, PolicyId::kBulkhead, "bulkhead full");
  ev(EventKind::kTimedOut, PolicyId::kTimeout, "deadline");
  ev(EventKind::kHedgeLaunched, PolicyId::kHedge, {});
  ev(EventKind::kHedgeWon, PolicyId::kHedge, {}, 2);
  ev(EventKind::kFallback, PolicyId::kFallback, "unavailable");
  ev(EventKind::kAbandoned, PolicyId::kTimeout, "ignored_stop");
  inv.OnEvent(Event{.kind = EventKind::kAttemptEnded,
                    .policy = PolicyId::kOutlierDetection,
                    .endpoint = "10.0.0.1:80",
                    .outcome = OutcomeClass::kTransient});
  inv.OnEvent(Event{.kind = EventKind::kStateChanged,
                    .policy = PolicyId::kOutlierDetection,
                    .to_state = static_cast<std::uint8_t>(EndpointState::kEjectedConsecutiveFailures),
                    .endpoint = "we\"ird\\:80"});
  metrics
      .For("we\"ird\\name\n\x01\x7f\xff\xc3\xa9")  // control bytes, DEL, invalid and valid UTF-8
      .OnEvent(Event{.kind = EventKind::kFallback, .policy = PolicyId::kFallback});
  for (int w = 0; w < kWatchedCount; ++w) metrics.Watch("inventory", static_cast<Watched>(w), [] { return 3.0; });
  const PolicyId valve = RegisterValveFamilies();
  inv.OnEvent(Event{.kind = EventKind::kAdmitted, .policy = valve});
  inv.OnEvent(Event{.kind = EventKind::kStateChanged, .policy = valve, .to_state = 1});
}

TEST(MetricsHandlerTest, ServesAScrapeThatPromtoolAccepts) {
  MetricsListener metrics(8);                                            // room for 8 instances and 8 watches
  Populate(metrics);                                                     // 2 instances, 7 watches
  for (int i = 0; i < 7; ++i) metrics.For("more-" + std::to_string(i));  // the last is past the cap
  testkit::TestServer srv;
  srv.server.Get("/metrics", MetricsHandler(metrics));
  srv.Start();
  auto res = srv.Client().Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), MetricsListener::kContentType);
  for (std::string_view family :
       {"stormguard_attempts_total{", "stormguard_attempt_duration_seconds_bucket{", "stormguard_retry_calls_total{",
        "stormguard_circuitbreaker_state{", "stormguard_circuitbreaker_transitions_total{",
        "stormguard_rejected_calls_total{", "stormguard_hedges_sent_total{", "stormguard_hedges_won_total{",
        "stormguard_valve_admitted_total{", "stormguard_valve_moves_total{", "stormguard_valve_position{",
        "stormguard_bulkhead_concurrent_calls{", "stormguard_config_reloads_rejected_total{",
        "stormguard_endpoint_attempts_total{", "stormguard_endpoint_ejected{", "stormguard_endpoint_ejections_total{",
        "stormguard_metrics_overflow_total 1\n"}) {
    EXPECT_NE(res->body.find(family), std::string::npos) << family;
  }
  const testkit::Lint lint = testkit::Promtool(res->body);
  EXPECT_EQ(lint.exit_code, 0) << lint.output << "\n--- the scrape:\n" << res->body;
  EXPECT_EQ(lint.output, "") << lint.output;
}

// The check above can fail: promtool does complain about a bad exposition.
TEST(MetricsHandlerTest, PromtoolComplainsAboutABadExposition) {
  const testkit::Lint lint = testkit::Promtool("# TYPE stormguard_requests counter\nstormguard_requests 1\n");
  EXPECT_NE(lint.exit_code, 0);
  EXPECT_NE(lint.output.find("no help text"), std::string::npos) << lint.output;
}

}  // namespace
}  // namespace stormguard::http
