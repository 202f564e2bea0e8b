// Per-endpoint series: ejections by cause and the ejected gauge, bounded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "stormguard/core/endpoint_state.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Event Ejection(std::string_view endpoint, EndpointState from, EndpointState to) {
  return Event{.kind = EventKind::kStateChanged,
               .policy = PolicyId::kOutlierDetection,
               .from_state = static_cast<std::uint8_t>(from),
               .to_state = static_cast<std::uint8_t>(to),
               .endpoint = endpoint};
}

TEST(EndpointMetricsTest, EjectionsAreCountedByCauseAndTheGaugeFollowsReadmission) {
  MetricsListener metrics;
  Listener& inventory = metrics.For("inventory");
  const auto admitted = EndpointState::kAdmitted;
  inventory.OnEvent(Ejection("10.0.0.1:80", admitted, EndpointState::kEjectedConsecutiveFailures));
  inventory.OnEvent(Ejection("10.0.0.1:80", EndpointState::kEjectedConsecutiveFailures, admitted));
  inventory.OnEvent(Ejection("10.0.0.1:80", admitted, EndpointState::kEjectedSuccessRate));
  inventory.OnEvent(Ejection("10.0.0.2:80", admitted, EndpointState::kEjectedConsecutiveFailures));
  inventory.OnEvent(Ejection("10.0.0.2:80", EndpointState::kEjectedConsecutiveFailures, admitted));
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("# TYPE stormguard_endpoint_ejected gauge\n"));
  EXPECT_THAT(text, HasSubstr(R"(stormguard_endpoint_ejected{name="inventory",endpoint="10.0.0.1:80"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(stormguard_endpoint_ejected{name="inventory",endpoint="10.0.0.2:80"} 0)"));
  EXPECT_THAT(text, HasSubstr(R"(stormguard_endpoint_ejections_total{name="inventory",endpoint="10.0.0.1:80",)"
                              R"(reason="consecutive_failures"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(stormguard_endpoint_ejections_total{name="inventory",endpoint="10.0.0.1:80",)"
                              R"(reason="success_rate"} 1)"));
}

TEST(EndpointMetricsTest, AddressesAreEscapedAndTheirNumberIsBounded) {
  MetricsListener metrics;
  Listener& l = metrics.For("d");
  l.OnEvent(Ejection(R"(a"b\c:1)", EndpointState::kAdmitted, EndpointState::kEjectedConsecutiveFailures));
  for (int i = 0; i < 1000; ++i) {
    l.OnEvent(Ejection("h" + std::to_string(i) + ":1", EndpointState::kAdmitted,
                       EndpointState::kEjectedConsecutiveFailures));
  }
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr(R"(endpoint="a\"b)"));  // the quote escaped, as instance names are
  EXPECT_THAT(text, HasSubstr(R"(endpoint="_other",reason="consecutive_failures"} 745)"));
  EXPECT_THAT(text, HasSubstr(R"(endpoint="h254:1")"));
  EXPECT_THAT(text, Not(HasSubstr(R"(endpoint="h255:1")")));
}

TEST(EndpointMetricsTest, AttemptsAreCountedPerEndpointByOutcome) {
  MetricsListener metrics;
  Listener& l = metrics.For("inventory");
  const auto attempt = [](OutcomeClass outcome) {
    return Event{.kind = EventKind::kAttemptEnded,
                 .policy = PolicyId::kOutlierDetection,
                 .endpoint = "10.0.0.1:80",
                 .outcome = outcome};
  };
  l.OnEvent(attempt(OutcomeClass::kSuccess));
  l.OnEvent(attempt(OutcomeClass::kSuccess));
  l.OnEvent(attempt(OutcomeClass::kTransient));
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr(R"(stormguard_endpoint_attempts_total{name="inventory",endpoint="10.0.0.1:80",)"
                              R"(outcome="success"} 2)"));
  EXPECT_THAT(text, HasSubstr(R"(endpoint="10.0.0.1:80",outcome="transient"} 1)"));
  EXPECT_THAT(text, HasSubstr(R"(stormguard_endpoint_ejected{name="inventory",endpoint="10.0.0.1:80"} 0)"));
  // The pipeline's own families do not count these a second time.
  EXPECT_THAT(text, Not(HasSubstr("stormguard_attempts_total")));
}

TEST(EndpointMetricsTest, NoEndpointSeriesWithoutReplicas) {
  MetricsListener metrics;
  metrics.For("d").OnEvent(Event{.kind = EventKind::kTimedOut, .policy = PolicyId::kTimeout});
  EXPECT_THAT(metrics.Scrape(), Not(HasSubstr("stormguard_endpoint")));
}

}  // namespace
}  // namespace stormguard
