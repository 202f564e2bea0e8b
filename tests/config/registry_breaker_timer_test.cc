// A breaker from JSON with automatic_transition_from_open_to_half_open moves
// by itself, on the registry's timers (RegistryOptions::pipeline.timers).
#include <gtest/gtest.h>

#include <string>

#include "registry_test_util.h"
#include "stormguard/pipeline/stages/circuit_breaker_stage.h"

namespace stormguard::config {
namespace {
using namespace std::chrono_literals;
using testkit::RegistryEnv;

constexpr std::string_view kBreaker =
    R"("circuit_breaker": {"window_size": 1, "minimum_number_of_calls": 1, "wait_in_open": "10s",
                           "automatic_transition_from_open_to_half_open": true})";

const CircuitBreaker* BreakerOf(const Pipeline& p) {
  const auto* stage = testkit::StageOf<CircuitBreakerStage>(p);
  return stage != nullptr ? &stage->breaker() : nullptr;
}

class RegistryBreakerTimerTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};

  // Trips d's breaker with one failing call, then lets its wait pass
  // without a call; returns the state the timer left it in.
  CircuitState StateAfterTheWait() {
    const CircuitBreaker* breaker = BreakerOf(*registry.Get("d"));
    EXPECT_NE(breaker, nullptr);
    if (breaker == nullptr) return CircuitState::kClosed;
    CallContext ctx{.idempotency_key = "k"};  // third_party_api requires one
    (void)registry.Get("d")->Execute(ctx, [](CallContext&) { return Status::Unavailable("down"); });
    EXPECT_EQ(breaker->state(), CircuitState::kOpen);
    env.clock.Advance(10s);
    env.timers->RunDue();
    return breaker->state();
  }
};

TEST_F(RegistryBreakerTimerTest, ABreakerFromJsonHalfOpensWithNoCall) {
  const std::string doc =
      R"({"destinations": {"d": {)" + std::string(kBreaker) + R"(, "pipeline": {"stages": ["circuit_breaker"]}}}})";
  ASSERT_TRUE(registry.Apply(doc, "test").ok());
  EXPECT_EQ(StateAfterTheWait(), CircuitState::kHalfOpen);
}

TEST_F(RegistryBreakerTimerTest, ThePresetsBreakerHalfOpensWithNoCall) {
  const std::string doc = R"({"destinations": {"d": {)" + std::string(kBreaker) +
                          R"(, "pipeline": {"third_party_api": {"max_attempts": 1}}}}})";
  ASSERT_TRUE(registry.Apply(doc, "test").ok());
  EXPECT_EQ(StateAfterTheWait(), CircuitState::kHalfOpen);
}

}  // namespace
}  // namespace stormguard::config
