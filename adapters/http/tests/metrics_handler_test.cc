// /metrics over loopback, checked by Debian's promtool (package prometheus).
#include "stormguard/http/metrics_handler.h"

#include <gtest/gtest.h>

#include <string>

#include "promtool.h"
#include "stormguard/pipeline/pipeline.h"
#include "test_server.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

// Every family gets samples: events of every kind, a real pipeline's calls,
// watches, an instance with a hostile name, and overflow past the cap.
void Populate(MetricsListener& metrics) {
  Listener& inv = metrics.For("inventory");
  auto pipeline = PipelineBuilder({.listener = &inv}).AddRetry({.max_attempts = 3}).AddCircuitBreaker({}).Build();
  ASSERT_TRUE(pipeline.ok());
  CallContext ctx;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pipeline->Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
  auto ev = [&](EventKind kind, std::string_view policy, std::string_view reason, int attempt = 1) {
    inv.OnEvent(Event{.kind = kind, .policy = policy, .reason = reason, .attempt = attempt,
                      .outcome = OutcomeClass::kTransient, .duration = 30ms});
  };
  ev(EventKind::kAttemptEnded, "pipeline", {});
  ev(EventKind::kRetryScheduled, "retry", {});
  ev(EventKind::kGaveUp, "retry", "budget_exhausted", 2);
  ev(EventKind::kGaveUp, "hedge", "budget_exhausted");
  ev(EventKind::kStateChanged, "circuit_breaker", "closed->open");
  ev(EventKind::kRejected, "circuit_breaker", "circuit open");
  ev(EventKind::kRejected, "bulkhead", "bulkhead full");
  ev(EventKind::kTimedOut, "timeout", "deadline");
  ev(EventKind::kHedgeLaunched, "hedge", {});
  ev(EventKind::kHedgeWon, "hedge", {}, 2);
  ev(EventKind::kFallback, "fallback", "unavailable");
  ev(EventKind::kAbandoned, "timeout", "ignored_stop");
  metrics.For("we\"ird\\name\n\x01\x7f\xff\xc3\xa9")  // control bytes, DEL, invalid and valid UTF-8
      .OnEvent(Event{.kind = EventKind::kFallback, .policy = "fallback"});
  for (int w = 0; w < kWatchedCount; ++w) metrics.Watch("inventory", static_cast<Watched>(w), [] { return 3.0; });
}

TEST(MetricsHandlerTest, ServesAScrapeThatPromtoolAccepts) {
  MetricsListener metrics(8);  // room for 8 instances and 8 watches
  Populate(metrics);          // 2 instances, 7 watches
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
        "stormguard_circuitbreaker_state{", "stormguard_rejected_calls_total{", "stormguard_hedges_sent_total{",
        "stormguard_hedges_won_total{",
        "stormguard_bulkhead_concurrent_calls{", "stormguard_config_reloads_rejected_total{",
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
