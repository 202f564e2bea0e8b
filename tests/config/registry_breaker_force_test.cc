// "circuit_breaker": {"force": ...}: an operator holds a destination's
// breaker open (or out of the way) through the configuration, in place.
#include <gtest/gtest.h>

#include <string>

#include "registry_test_util.h"
#include "stormguard/config/config_json.h"
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

namespace stormguard::config {
namespace {
using testkit::Call;
using testkit::RegistryEnv;

// "d" with a breaker that opens after two failures, forced as `force` says.
std::string ForcedDoc(const std::string& force) {
  const std::string extra = force.empty() ? "" : R"(, "force": ")" + force + R"(")";
  return R"({"destinations": {"d": {"circuit_breaker": {"window_size": 2, "minimum_number_of_calls": 2)" + extra +
         R"(}, "pipeline": {"stages": ["circuit_breaker"]}}}})";
}

class RegistryBreakerForceTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};

  void Apply(const std::string& text) { ASSERT_TRUE(registry.Apply(text, "test").ok()) << text; }
  const CircuitBreaker& Breaker() { return testkit::StageOf<CircuitBreakerStage>(*registry.Get("d"))->breaker(); }
  // Attempts one call makes through "d" (0: the breaker refused it).
  int Attempts(Status answer = Status::Ok()) {
    int calls = 0;
    (void)Call(*registry.Get("d"), answer, &calls);
    return calls;
  }
};

TEST_F(RegistryBreakerForceTest, ForcedOpenRefusesEveryCallAndDroppingItClosesTheSameBreaker) {
  Apply(ForcedDoc(""));
  const CircuitBreaker* before = &Breaker();
  Apply(ForcedDoc("forced_open"));
  EXPECT_EQ(&Breaker(), before) << "a force moves the breaker it has";
  EXPECT_EQ(Breaker().state(), CircuitState::kForcedOpen);
  EXPECT_EQ(Attempts(), 0);
  Apply(ForcedDoc("forced_open"));  // still forced: nothing moves
  EXPECT_EQ(Breaker().state(), CircuitState::kForcedOpen);
  Apply(ForcedDoc(""));
  EXPECT_EQ(&Breaker(), before);
  EXPECT_EQ(Breaker().state(), CircuitState::kClosed);
  EXPECT_EQ(Attempts(), 1);
}

TEST_F(RegistryBreakerForceTest, DisabledLetsCallsThroughAnOpenBreaker) {
  Apply(ForcedDoc(""));
  EXPECT_EQ(Attempts(Status::Unavailable("down")) + Attempts(Status::Unavailable("down")), 2);
  ASSERT_EQ(Breaker().state(), CircuitState::kOpen);
  Apply(ForcedDoc("disabled"));
  EXPECT_EQ(Attempts(Status::Unavailable("down")), 1);
  EXPECT_EQ(Attempts(Status::Unavailable("down")), 1);  // it records nothing, so never opens
  Apply(ForcedDoc(""));
  EXPECT_EQ(Breaker().state(), CircuitState::kClosed);
}

TEST_F(RegistryBreakerForceTest, DroppingTheForceLeavesAStateTheBreakerReachedByItself) {
  Apply(ForcedDoc(""));
  EXPECT_EQ(Attempts(Status::Unavailable("down")) + Attempts(Status::Unavailable("down")), 2);
  ASSERT_EQ(Breaker().state(), CircuitState::kOpen);
  Apply(ForcedDoc(""));  // no force before or now: the breaker judges
  EXPECT_EQ(Breaker().state(), CircuitState::kOpen);
}

TEST_F(RegistryBreakerForceTest, ARefusedConfigurationForcesNothing) {
  Apply(ForcedDoc(""));
  const std::string bad =
      R"({"destinations": {"d": {"circuit_breaker": {"window_size": 2, "minimum_number_of_calls": 2,
          "force": "forced_open"}, "pipeline": {"stages": ["circuit_breaker", {"retry": {"max_attempts": -1}}]}}}})";
  EXPECT_FALSE(registry.Apply(bad, "test").ok());
  EXPECT_EQ(Breaker().state(), CircuitState::kClosed);
  EXPECT_EQ(Attempts(), 1);
}

TEST_F(RegistryBreakerForceTest, AnUnknownForceNamesItsPathAndKeepsTheConfiguration) {
  Apply(ForcedDoc("forced_open"));
  for (const std::string bad : {R"("open")", R"("closed")", "1", "null", R"(["forced_open"])"}) {
    const std::string doc = R"({"destinations": {"d": {"circuit_breaker": {"force": )" + bad +
                            R"(}, "pipeline": {"stages": ["circuit_breaker"]}}}})";
    const Status s = registry.Apply(doc, "test");
    EXPECT_NE(s.message().find("destinations.d.circuit_breaker.force: must be \"forced_open\" or \"disabled\""),
              std::string::npos)
        << bad << ": " << s.ToString();
  }
  EXPECT_EQ(Breaker().state(), CircuitState::kForcedOpen);
}

TEST_F(RegistryBreakerForceTest, TheForceIsWrittenBackAsRead) {
  const Result<Config> parsed = ParseConfig(ForcedDoc("disabled"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->destinations.at("d").circuit_breaker_force, CircuitState::kDisabled);
  const nlohmann::json written = nlohmann::json::parse(ToJson(*parsed));
  EXPECT_EQ(written["destinations"]["d"]["circuit_breaker"]["force"], "disabled");
}

}  // namespace
}  // namespace stormguard::config
