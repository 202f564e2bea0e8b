// Registered metric families: a policy's own families, fed by its events by
// id and kind, exposed by every MetricsListener; and the registration's
// errors. Families are the process's: each test registers names of its own.
#include "stormguard/metrics/metric_family.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>

#include "../../src/metrics/family_registry.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

PolicyId FamilyTestPolicy(std::string_view name) { return RegisterPolicyName(name).value(); }

MetricFamily FamilyTestCounter(std::string name, PolicyId policy, std::vector<EventKind> kinds) {
  return {.name = std::move(name), .help = "A test counter.", .policy = policy, .kinds = std::move(kinds)};
}

TEST(MetricFamilyTest, AProgramPolicysEventsFeedItsFamiliesPerInstance) {
  const PolicyId widget = FamilyTestPolicy("family_test_widget");
  ASSERT_TRUE(RegisterMetricFamilies({FamilyTestCounter("stormguard_family_test_admitted_total", widget,
                                                        {EventKind::kAdmitted}),
                                      FamilyTestCounter("stormguard_family_test_refused_total", widget,
                                                        {EventKind::kRejected, EventKind::kTimedOut})})
                  .ok());
  MetricsListener m;
  for (int i = 0; i < 3; ++i) m.For("a").OnEvent({.kind = EventKind::kAdmitted, .policy = widget});
  m.For("a").OnEvent({.kind = EventKind::kRejected, .policy = widget});
  m.For("a").OnEvent({.kind = EventKind::kTimedOut, .policy = widget});
  m.For("a").OnEvent({.kind = EventKind::kAdmitted, .policy = PolicyId::kBulkhead});  // another policy's
  Event routed{.kind = EventKind::kAdmitted, .policy = widget};
  routed.scope = "b";
  m.OnEvent(routed);
  const std::string text = m.Scrape();
  EXPECT_THAT(text, HasSubstr("# HELP stormguard_family_test_admitted_total A test counter.\n"
                              "# TYPE stormguard_family_test_admitted_total counter\n"
                              "stormguard_family_test_admitted_total{name=\"a\"} 3\n"
                              "stormguard_family_test_admitted_total{name=\"b\"} 1\n"
                              "# HELP stormguard_family_test_refused_total A test counter.\n"
                              "# TYPE stormguard_family_test_refused_total counter\n"
                              "stormguard_family_test_refused_total{name=\"a\"} 2\n"));
  // Its refusal also counts where any unknown policy's does.
  EXPECT_THAT(text, HasSubstr("stormguard_rejected_calls_total{name=\"a\",policy=\"other\"} 1\n"));
}

TEST(MetricFamilyTest, StateFamiliesCountAndShowTheStateEntered) {
  const PolicyId valve = FamilyTestPolicy("family_test_valve");
  const std::vector<std::string> states = {"shut", "ajar", "wide"};
  ASSERT_TRUE(RegisterMetricFamilies({{.name = "stormguard_family_test_valve_state",
                                       .help = "The valve's state.",
                                       .type = MetricType::kStateGauge,
                                       .policy = valve,
                                       .kinds = {EventKind::kStateReported, EventKind::kStateChanged},
                                       .state_label = "position",
                                       .state_names = states},
                                      {.name = "stormguard_family_test_valve_moves_total",
                                       .help = "Valve moves, by the state entered.",
                                       .policy = valve,
                                       .kinds = {EventKind::kStateChanged},
                                       .state_label = "position",
                                       .state_names = states}})
                  .ok());
  MetricsListener m;
  Listener& l = m.For("v");
  l.OnEvent({.kind = EventKind::kStateReported, .policy = valve, .to_state = 0});
  EXPECT_THAT(m.Scrape(), HasSubstr("stormguard_family_test_valve_state{name=\"v\",position=\"shut\"} 1\n"
                                    "stormguard_family_test_valve_state{name=\"v\",position=\"ajar\"} 0\n"
                                    "stormguard_family_test_valve_state{name=\"v\",position=\"wide\"} 0\n"));
  EXPECT_THAT(m.Scrape(), Not(HasSubstr("stormguard_family_test_valve_moves_total{")));
  l.OnEvent({.kind = EventKind::kStateChanged, .policy = valve, .from_state = 0, .to_state = 2});
  l.OnEvent({.kind = EventKind::kStateChanged, .policy = valve, .from_state = 2, .to_state = 1});
  l.OnEvent({.kind = EventKind::kStateChanged, .policy = valve, .from_state = 1, .to_state = 2});
  l.OnEvent({.kind = EventKind::kStateChanged, .policy = valve, .from_state = 2, .to_state = 3});  // no name: dropped
  EXPECT_THAT(m.Scrape(), HasSubstr("# HELP stormguard_family_test_valve_state The valve's state.\n"
                                    "# TYPE stormguard_family_test_valve_state gauge\n"
                                    "stormguard_family_test_valve_state{name=\"v\",position=\"shut\"} 0\n"
                                    "stormguard_family_test_valve_state{name=\"v\",position=\"ajar\"} 0\n"
                                    "stormguard_family_test_valve_state{name=\"v\",position=\"wide\"} 1\n"
                                    "# HELP stormguard_family_test_valve_moves_total Valve moves, by the state "
                                    "entered.\n"
                                    "# TYPE stormguard_family_test_valve_moves_total counter\n"
                                    "stormguard_family_test_valve_moves_total{name=\"v\",position=\"ajar\"} 1\n"
                                    "stormguard_family_test_valve_moves_total{name=\"v\",position=\"wide\"} 2\n"));
}

TEST(MetricFamilyTest, RegisteringTheSameFamilyAgainIsHarmlessADifferentOneIsRefused) {
  const PolicyId p = FamilyTestPolicy("family_test_again");
  const MetricFamily f = FamilyTestCounter("stormguard_family_test_again_total", p, {EventKind::kRejected});
  ASSERT_TRUE(RegisterMetricFamilies({f}).ok());
  EXPECT_TRUE(RegisterMetricFamilies({f, f}).ok());
  MetricFamily other = f;
  other.help = "Another meaning.";
  const Status s = RegisterMetricFamilies({other});
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(s.message(), HasSubstr("stormguard_family_test_again_total: a different family has that name"));
}

TEST(MetricFamilyTest, AFamiliesBatchIsAllOrNone) {
  const PolicyId p = FamilyTestPolicy("family_test_batch");
  const MetricFamily good = FamilyTestCounter("stormguard_family_test_batch_total", p, {EventKind::kRejected});
  EXPECT_FALSE(RegisterMetricFamilies({good, FamilyTestCounter("bad name", p, {EventKind::kRejected})}).ok());
  MetricsListener m;
  m.For("x").OnEvent({.kind = EventKind::kRejected, .policy = p});
  EXPECT_THAT(m.Scrape(), Not(HasSubstr("stormguard_family_test_batch_total")));
}

// Each bad field is named in the error.
TEST(MetricFamilyTest, ABadFamilyIsRefusedNamingTheField) {
  const PolicyId p = FamilyTestPolicy("family_test_bad");
  const auto refused = [](MetricFamily f) { return std::string(RegisterMetricFamilies({f}).message()); };
  MetricFamily f = FamilyTestCounter("stormguard_family_test_bad_total", p, {EventKind::kRejected});
  const auto with = [&](auto change) {
    MetricFamily g = f;
    change(g);
    return refused(g);
  };
  EXPECT_THAT(with([](MetricFamily& g) { g.name = "9lives_total"; }), HasSubstr("9lives_total: name: must be"));
  EXPECT_THAT(with([](MetricFamily& g) { g.name = "stormguard_family_test_bad"; }),
              HasSubstr("a counter's must end in _total"));
  EXPECT_THAT(with([](MetricFamily& g) { g.type = MetricType::kStateGauge; }),
              HasSubstr("only a counter's may end in _total"));
  EXPECT_THAT(with([](MetricFamily& g) { g.name = "stormguard_rejected_calls_total"; }),
              HasSubstr("is one of MetricsListener's own families"));
  EXPECT_THAT(with([](MetricFamily& g) { g.name = "stormguard_attempt_duration_seconds_bucket_total"; }),
              HasSubstr("is one of MetricsListener's own families"));
  EXPECT_THAT(with([](MetricFamily& g) { g.help = "two\nlines"; }), HasSubstr("help: must be 1 to 256 bytes"));
  EXPECT_THAT(with([](MetricFamily& g) { g.help.clear(); }), HasSubstr("help: must be"));
  EXPECT_THAT(with([](MetricFamily& g) { g.policy = PolicyId::kNone; }), HasSubstr("policy: must be a policy's id"));
  EXPECT_THAT(with([](MetricFamily& g) { g.kinds.clear(); }), HasSubstr("kinds: must name at least one"));
  EXPECT_THAT(with([](MetricFamily& g) { g.kinds = {EventKind::kAttemptStarted}; }),
              HasSubstr("kAttemptStarted never reaches a MetricsListener"));
  EXPECT_THAT(with([](MetricFamily& g) {
                g.policy = PolicyId::kRetry;
                g.kinds = {EventKind::kAttemptEnded};
              }),
              HasSubstr("feed stormguard_attempts_total"));
  EXPECT_THAT(with([](MetricFamily& g) { g.state_names = {"a"}; }), HasSubstr("state_label: must be set"));
  EXPECT_THAT(with([](MetricFamily& g) {
                g.name = "stormguard_family_test_bad_state";
                g.type = MetricType::kStateGauge;
              }),
              HasSubstr("a state gauge needs states"));
  EXPECT_THAT(with([](MetricFamily& g) {
                g.state_label = "name";
                g.state_names = {"a"};
              }),
              HasSubstr("state_label: must be"));
  EXPECT_THAT(with([](MetricFamily& g) { g.state_label = "state"; }), HasSubstr("state_names: must hold 1 to 255"));
  EXPECT_THAT(with([](MetricFamily& g) {
                g.state_label = "state";
                g.state_names = {"up", "up"};
              }),
              HasSubstr("\"up\" is there twice"));
  EXPECT_THAT(with([](MetricFamily& g) {
                g.state_label = "state";
                g.state_names = {"half open"};
              }),
              HasSubstr("state_names: each must be"));
}

// Under TSan: two threads record a registered family (their first events
// race to make the instance's cells) while this one registers another and
// scrapes; every event is counted once.
TEST(MetricFamilyTest, RecordsFromTwoThreadsWhileRegisteringAndScraping) {
  const PolicyId p = FamilyTestPolicy("family_test_threads");
  ASSERT_TRUE(RegisterMetricFamilies({FamilyTestCounter("stormguard_family_test_threads_total", p,
                                                        {EventKind::kRejected})})
                  .ok());
  MetricsListener m;
  constexpr int kEvents = 20'000;
  std::atomic<int> done{0};
  auto record = [&] {
    for (int i = 0; i < kEvents; ++i) m.For("t").OnEvent({.kind = EventKind::kRejected, .policy = p});
    done.fetch_add(1);
  };
  std::thread a(record);
  std::thread b(record);
  EXPECT_TRUE(RegisterMetricFamilies({FamilyTestCounter("stormguard_family_test_threads_later_total", p,
                                                        {EventKind::kRejected})})
                  .ok());
  while (done.load() < 2) EXPECT_THAT(m.Scrape(), HasSubstr("stormguard_metrics_overflow_total 0"));
  a.join();
  b.join();
  EXPECT_THAT(m.Scrape(), HasSubstr("stormguard_family_test_threads_total{name=\"t\"} 40000\n"));
}

// In a child process: the families are the process's, and this fills them.
TEST(MetricFamilyTest, FamiliesRunOutWithAClearError) {
  EXPECT_EXIT(
      {
        const PolicyId p = FamilyTestPolicy("family_test_bound");
        Status last;
        for (int i = 0; i <= kMaxMetricFamilies && last.ok(); ++i) {
          const std::string name = "stormguard_family_test_bound_" + std::to_string(i) + "_total";
          last = RegisterMetricFamilies({FamilyTestCounter(name, p, {EventKind::kRejected})});
        }
        // No exit handlers: a forked child's leak check sees false leaks.
        std::_Exit(last.code() == StatusCode::kResourceExhausted ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// The listener's own families are all known to the registration (which
// refuses their names): every family a scrape of them all shows.
TEST(MetricFamilyTest, EveryFamilyTheListenerWritesItselfIsReserved) {
  MetricsListener m;
  Listener& l = m.For("all");
  for (PolicyId p : {PolicyId::kPipeline, PolicyId::kRetry, PolicyId::kHedge, PolicyId::kCircuitBreaker,
                     PolicyId::kBulkhead, PolicyId::kTimeout, PolicyId::kFallback, PolicyId::kChaos}) {
    for (int k = 1; k < kEventKindCount; ++k) {
      l.OnEvent({.kind = static_cast<EventKind>(k),
                 .policy = p,
                 .reason = "budget_exhausted",
                 .attempt = 2,
                 .duration = std::chrono::milliseconds(3)});
    }
  }
  for (int w = 0; w < kWatchedCount; ++w) m.Watch("all", static_cast<Watched>(w), [] { return 1.0; });
  const std::string text = m.Scrape();
  const std::regex type("# TYPE ([a-z_]+) ");
  int families = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), type); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (name.starts_with("stormguard_family_test_") || name.starts_with("stormguard_circuitbreaker_state") ||
        name.starts_with("stormguard_circuitbreaker_transitions")) {
      continue;  // registered
    }
    ++families;
    EXPECT_TRUE(metrics_internal::IsBuiltInFamily(name)) << name;
  }
  EXPECT_EQ(families, 15 + kWatchedCount);
}

}  // namespace
}  // namespace stormguard
