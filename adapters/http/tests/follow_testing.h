// For the reload tests of every adapter: configurations to switch between,
// all for one destination "d" (an adapter given registry.Follow("d") must
// behave per the one in force when each call starts), and a server's first
// call held while the test reloads.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stormguard/config/registry.h"
#include "stormguard/exec/executor.h"

namespace stormguard::reload_testing {

// Clients: one attempt, or three with 1 ms between them.
inline constexpr std::string_view kOneAttempt =
    R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {"max_attempts": 1}}]}}}})";
inline constexpr std::string_view kThreeAttempts = R"({"destinations": {"d": {"pipeline": {"stages": [
    {"retry": {"max_attempts": 3, "backoff": {"base": "1ms", "cap": "1ms"}}}]}}}})";
// A retry that claims every call idempotent: a client decides per call instead.
inline constexpr std::string_view kIdempotentRetry = R"({"destinations": {"d": {"pipeline": {"stages": [
    {"retry": {"max_attempts": 3, "idempotent": true, "backoff": {"base": "1ms", "cap": "1ms"}}}]}}}})";

// Servers: no stages, or a rate limiter that lets one call through and
// refuses the next at once (a token per 1000 s).
inline constexpr std::string_view kNoStages = R"({"destinations": {"d": {}}})";
inline constexpr std::string_view kOneCallThenShed = R"({"destinations": {"d": {
    "rate_limiter": {"rate": 0.001, "burst": 1, "max_wait": "0s"},
    "pipeline": {"stages": ["rate_limiter"]}}}})";

inline void Reload(config::Registry& registry, std::string_view config) {
  const Status s = registry.Apply(config, "test");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// A client decides per call what may repeat, so it refuses these at Create:
// each pipeline, with the stage its refusal must name.
inline std::vector<std::pair<PipelineRef, std::string>> PipelinesClaimingEveryCallIdempotent() {
  RetryOptions retry;
  retry.idempotent = true;
  HedgeOptions hedge{.delay = std::chrono::milliseconds(50)};
  hedge.idempotent = true;
  auto executor = Executor::Create();
  EXPECT_TRUE(executor.ok()) << executor.status().ToString();
  if (!executor.ok()) return {};
  return {{PipelineBuilder().AddRetry(retry).Build().value(), "stages[0] (retry)"},
          {PipelineBuilder().AddHedge(hedge, std::move(executor).value()).Build().value(), "stages[0] (hedge)"}};
}

// The refusal names the option, the stage and why (Pipeline::RepeatsEveryCall).
inline void ExpectRefusedAsRepeatingEveryCall(const Status& refused, const std::string& stage) {
  ASSERT_FALSE(refused.ok()) << stage;
  const std::string why = refused.ToString();
  EXPECT_NE(why.find("pipeline"), std::string::npos) << why;
  EXPECT_NE(why.find(stage + " has idempotent = true"), std::string::npos) << why;
  EXPECT_NE(why.find("may then take effect twice"), std::string::npos) << why;
}

// Call Arrive() in the server's handler: the first call waits there until
// Release() (10 s at most), so a reload can land while it is in flight.
class FirstCallHeld {
 public:
  void Arrive() {
    if (arrivals_.fetch_add(1) == 0) {
      arrived_.set_value();
      released_.wait_for(std::chrono::seconds(10));
    }
  }
  // Bounded: false when no call arrived within 10 s.
  bool WaitForFirst() { return first_.wait_for(std::chrono::seconds(10)) == std::future_status::ready; }
  void Release() { release_.set_value(); }
  int arrivals() const { return arrivals_.load(); }

 private:
  std::atomic<int> arrivals_{0};
  std::promise<void> arrived_;
  std::future<void> first_ = arrived_.get_future();
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

}  // namespace stormguard::reload_testing
