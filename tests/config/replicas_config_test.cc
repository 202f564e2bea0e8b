// A destination's "replicas": read, checked, written back, and kept by the
// registry as one set per destination that each reload updates in place.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "stormguard/config/registry.h"

namespace stormguard::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::ErrorsOf;
using testkit::Inventory;
using namespace std::chrono_literals;

constexpr std::string_view kTwoReplicas = R"({"replicas": {
  "endpoints": ["10.0.0.1:80", {"address": "10.0.0.2:80", "weight": 2}],
  "picker": "round_robin",
  "load": {"decay": "5s", "initial_latency": "2ms", "failure_penalty": "250ms"},
  "outlier_detection": {"consecutive_failures": 3, "base_ejection_time": "5s", "max_ejection_percent": 50}
}})";

TEST(ReplicasConfigTest, ReadsEveryFieldAndWritesThemBack) {
  Result<Config> c = ParseConfig(Inventory(kTwoReplicas));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const ReplicasConfig& r = *c->destinations.at("inventory").replicas;
  ASSERT_TRUE(r.endpoints);
  EXPECT_THAT(*r.endpoints, ElementsAre(EndpointSpec{"10.0.0.1:80", 1.0}, EndpointSpec{"10.0.0.2:80", 2.0}));
  EXPECT_EQ(r.picker, PickerKind::kRoundRobin);
  EXPECT_EQ(r.load.decay, 5s);
  EXPECT_EQ(r.load.initial_latency, 2ms);
  EXPECT_EQ(r.load.failure_penalty, 250ms);
  EXPECT_EQ(r.outlier_detection.consecutive_failures, 3);
  EXPECT_EQ(r.outlier_detection.base_ejection_time, 5s);
  EXPECT_EQ(r.outlier_detection.max_ejection_percent, 50);
  EXPECT_EQ(r.outlier_detection.interval, 10s);  // a default
  Result<Config> again = ParseConfig(ToJson(*c));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ToJson(*again), ToJson(*c));
  EXPECT_THAT(ToJson(*c), HasSubstr(R"("10.0.0.1:80")"));
}

TEST(ReplicasConfigTest, EachBadValueIsNamedByItsPath) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"replicas": {"picker": "p3c"}})", "destinations.inventory.replicas.picker: must be \"random\""},
      {R"({"replicas": {"picker": 7}})", "destinations.inventory.replicas.picker: must be"},
      {R"({"replicas": {"endpoints": "10.0.0.1:80"}})", "destinations.inventory.replicas.endpoints: must be an array"},
      {R"({"replicas": {"endpoints": ["a:1", "a:1"]}})",
       "destinations.inventory.replicas.endpoints[1].address: repeats endpoints[0]"},
      {R"({"replicas": {"endpoints": ["a b:1"]}})", "destinations.inventory.replicas.endpoints[0].address"},
      {R"({"replicas": {"endpoints": [""]}})", "destinations.inventory.replicas.endpoints[0].address"},
      {R"({"replicas": {"endpoints": [{"address": "a:1", "weight": -1}]}})",
       "destinations.inventory.replicas.endpoints[0].weight: must be in (0, 1e6]"},
      {R"({"replicas": {"endpoints": [{"address": "a:1", "weight": 1e300}]}})",
       "destinations.inventory.replicas.endpoints[0].weight"},
      {R"({"replicas": {"endpoints": [{"address": "a:1", "port": 80}]}})",
       "destinations.inventory.replicas.endpoints[0].port"},
      {R"({"replicas": {"outlier_detection": {"interval": "0s"}}})",
       "destinations.inventory.replicas.outlier_detection.interval: must be in (0, 1h]"},
      {R"({"replicas": {"outlier_detection": {"max_ejection_percent": 101}}})",
       "destinations.inventory.replicas.outlier_detection.max_ejection_percent"},
      {R"({"replicas": {"outlier_detection": {"consecutive_failures": -1}}})",
       "destinations.inventory.replicas.outlier_detection.consecutive_failures"},
      {R"({"replicas": {"load": {"decay": "-1s"}}})", "destinations.inventory.replicas.load.decay"},
      {R"({"replicas": {"load": {"failure_penalty": "-1ms"}}})",
       "destinations.inventory.replicas.load.failure_penalty"},
      {R"({"replicas": {"load": {"weight": 2}}})", "destinations.inventory.replicas.load.weight"},
      {R"({"replicas": {"endpoint": []}})", "destinations.inventory.replicas.endpoint"},
      {R"({"replicas": []})", "destinations.inventory.replicas: must be an object"},
  };
  for (const auto& [destination, expected] : cases) {
    const auto errors = ErrorsOf(Inventory(destination));
    ASSERT_FALSE(errors.empty()) << destination;
    EXPECT_THAT(errors[0], HasSubstr(expected)) << destination;
  }
}

TEST(ReplicasConfigTest, TooManyEndpointsAreRefusedBeforeTheyAreRead) {
  std::string list = "[";
  for (std::size_t i = 0; i <= kMaxEndpoints; ++i) list += (i ? ",\"a:" : "\"a:") + std::to_string(i) + "\"";
  list += "]";
  const auto errors = ErrorsOf(Inventory(R"({"replicas": {"endpoints": )" + list + "}}"));
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_THAT(errors[0], HasSubstr("at most 10000 endpoints"));
}

std::string WithEndpoints(std::string_view list) {
  return Inventory(R"({"replicas": {"endpoints": )" + std::string(list) +
                   R"(, "outlier_detection": {"consecutive_failures": 1, "max_ejection_percent": 50}}})");
}

bool IsEjected(const ReplicaSet& set, std::string_view address) {
  for (const auto& e : set.Endpoints()) {
    if (e.address == address) return e.ejected;
  }
  return false;
}

TEST(ReplicasConfigTest, AReloadUpdatesTheSameSetAndKeepsVerdicts) {
  Registry registry;
  EXPECT_EQ(registry.Replicas("inventory"), nullptr);
  ASSERT_TRUE(registry.Apply(WithEndpoints(R"(["a:1", "b:1"])"), "test").ok());
  std::shared_ptr<ReplicaSet> set = registry.Replicas("inventory");
  ASSERT_NE(set, nullptr);
  Tried tried;
  Random random(1);
  PickedEndpoint e;
  while (!e || e.address() != "a:1") e = set->Pick(TimePoint(1h), tried = {}, random);
  set->Report(e, OutcomeClass::kTransient, TimePoint(1h));
  ASSERT_TRUE(IsEjected(*set, "a:1"));

  ASSERT_TRUE(registry.Apply(WithEndpoints(R"(["a:1", "b:1", "c:1"])"), "test").ok());
  EXPECT_EQ(registry.Replicas("inventory"), set);  // the same object: a client holding it follows
  EXPECT_EQ(set->size(), 3U);
  EXPECT_TRUE(IsEjected(*set, "a:1"));

  EXPECT_FALSE(registry.Apply(WithEndpoints(R"(["a:1", "a:1"])"), "test").ok());
  EXPECT_EQ(set->size(), 3U);  // refused: nothing changed

  ASSERT_TRUE(registry.Apply(Inventory(R"({"replicas": {"picker": "random"}})"), "test").ok());
  EXPECT_EQ(set->size(), 3U);  // no "endpoints": membership is discovery's, left alone
  EXPECT_EQ(set->options().picker, PickerKind::kRandom);

  ASSERT_TRUE(registry.Apply(Inventory("{}"), "test").ok());
  EXPECT_EQ(set->size(), 0U);  // no replicas any more: calls go to their URL's address
}

TEST(ReplicasConfigTest, ARegistrysListenerHearsEjections) {
  struct Count : Listener {
    void OnEvent(const Event& e) noexcept override {
      if (e.policy == PolicyId::kOutlierDetection && e.kind == EventKind::kStateChanged) ++ejections;
    }
    std::atomic<int> ejections{0};
  } listener;
  Registry registry({.pipeline = {.listener = &listener}});
  ASSERT_TRUE(registry.Apply(WithEndpoints(R"(["a:1", "b:1"])"), "test").ok());
  auto set = registry.Replicas("inventory");
  Tried tried;
  Random random(1);
  PickedEndpoint e = set->Pick(TimePoint(1h), tried, random);
  set->Report(e, OutcomeClass::kTransient, TimePoint(1h));
  EXPECT_EQ(listener.ejections, 1);
}

}  // namespace
}  // namespace stormguard::config
