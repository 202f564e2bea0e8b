// One test per lint rule: a chain that triggers it, and the nearest chain
// that does not.
#include <gtest/gtest.h>

#include <memory>

#include "lint/lint_rules.h"
#include "stormguard/config/config_json.h"

namespace stormguard::lint {
namespace {

// A service whose destination "d" is configured by `destination` (the JSON
// object of one destination), calling `method` at `rate` per second.
ChainService Service(std::string name, const std::string& destination, std::string method = "GET /stock",
                     double rate = 0) {
  Result<config::Config> c = config::ParseConfig(R"({"destinations": {"d": )" + destination + "}}");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  std::string path = name + ".json";
  return {.name = std::move(name),
          .config_path = std::move(path),
          .config = std::make_shared<const config::Config>(c.ok() ? *c : config::Config{}),
          .calls = "d",
          .method = std::move(method),
          .rate = rate,
          .disabled = {}};
}

// The rule ids found, in order, for a chain of `callers` and a bare leaf.
std::vector<std::string> Ids(std::vector<ChainService> callers, const std::vector<std::string_view>& only = {}) {
  Chain chain{.path = "chain.json", .hop_reserve = 0.1, .services = std::move(callers)};
  chain.services.push_back({.name = "leaf"});
  Result<std::vector<Hop>> hops = HopsOf(chain);
  EXPECT_TRUE(hops.ok()) << hops.status().ToString();
  std::vector<std::string> ids;
  for (const Finding& f : Lint(chain, *hops).findings) {
    if (only.empty() || std::find(only.begin(), only.end(), f.rule) != only.end()) ids.emplace_back(f.rule);
  }
  return ids;
}

using Ids_ = std::vector<std::string>;
constexpr const char* kBudget = R"("retry_budget": {"token_bucket": {"max_tokens": 10, "token_ratio": 0.1}})";

std::string WithRetry(const std::string& retry_fields, const std::string& extra = kBudget) {
  return "{" + extra + (extra.empty() ? "" : ", ") + R"("pipeline": {"stages": [{"retry": {)" + retry_fields + "}}]}}";
}

TEST(LintRulesTest, SG001RetriesAtTwoLayersWithoutFlagOrBudget) {
  const std::string storm = WithRetry(R"("max_attempts": 3, "retry_when_serving_a_retry": true)", "");
  EXPECT_EQ(Ids({Service("A", storm), Service("B", storm)}, {"SG001"}), (Ids_{"SG001", "SG001"}));
  // The flag honoured below, or a budget: no longer a storm.
  const std::string flag = WithRetry(R"("max_attempts": 3)", "");
  EXPECT_EQ(Ids({Service("A", flag), Service("B", flag)}, {"SG001"}), Ids_{});
  const std::string budget = WithRetry(R"("max_attempts": 3, "retry_when_serving_a_retry": true)");
  EXPECT_EQ(Ids({Service("A", budget), Service("B", budget)}, {"SG001"}), Ids_{});
  // One retrying layer alone is no storm.
  EXPECT_EQ(Ids({Service("A", storm), Service("B", "{}")}, {"SG001"}), Ids_{});
}

TEST(LintRulesTest, SG002BackoffWithoutJitter) {
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("backoff": {"base": "100ms", "jitter": "none"})"))}), Ids_{"SG002"});
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("backoff": {"base": "100ms", "jitter": "full"})"))}), Ids_{});
}

TEST(LintRulesTest, SG003NonIdempotentRetryWithoutKey) {
  const std::string retry = WithRetry(R"("idempotent": true)");
  EXPECT_EQ(Ids({Service("A", retry, "POST /charge")}), Ids_{"SG003"});
  EXPECT_EQ(Ids({Service("A", retry, "GET /stock")}), Ids_{});
  const std::string keyed =
      std::string("{") + kBudget +
      R"(, "pipeline": {"stages": ["require_idempotency_key", {"retry": {"idempotent": true}}]}})";
  EXPECT_EQ(Ids({Service("A", keyed, "POST /charge")}), Ids_{});
}

TEST(LintRulesTest, SG004RetryWithoutBudget) {
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("max_attempts": 2)", ""))}), Ids_{"SG004"});
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("max_attempts": 2)"))}), Ids_{});
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("max_attempts": 1)", ""))}), Ids_{});  // no retry, no budget needed
}

TEST(LintRulesTest, SG005CalleeTimeoutNotSmallerThanCallersWithReserve) {
  const std::string caller = WithRetry(R"("per_attempt_timeout": "1s")");
  auto callee = [](const char* t) {
    return std::string("{") + kBudget + R"(, "pipeline": {"stages": [{"timeout": {"timeout": ")" + t + R"("}}]}})";
  };
  EXPECT_EQ(Ids({Service("A", caller), Service("B", callee("950ms"))}), Ids_{"SG005"});
  EXPECT_EQ(Ids({Service("A", caller), Service("B", callee("900ms"))}), Ids_{});
  // A callee bounded by nothing cannot fit either.
  EXPECT_EQ(Ids({Service("A", caller), Service("B", "{}")}), Ids_{"SG005"});
}

TEST(LintRulesTest, SG006AttemptsAndBackoffBeyondTheOverallTimeout) {
  // 3 x 300ms + waits of at most 100ms and 200ms = 1.2s > 1s.
  auto with = [](const char* attempt) {
    return std::string("{") + kBudget + R"(, "pipeline": {"stages": [{"timeout": {"timeout": "1s"}},
        {"retry": {"max_attempts": 3, "per_attempt_timeout": ")" +
           attempt + R"(", "backoff": {"base": "100ms", "jitter": "full"}}}]}})";
  };
  EXPECT_EQ(Ids({Service("A", with("300ms"))}), Ids_{"SG006"});
  EXPECT_EQ(Ids({Service("A", with("200ms"))}), Ids_{});  // 600ms + 300ms fits
}

TEST(LintRulesTest, SG007HedgeWithoutBudget) {
  const char* hedge = R"("pipeline": {"stages": [{"hedge": {"delay": "50ms"}}]})";
  EXPECT_EQ(Ids({Service("A", std::string("{") + hedge + "}")}), Ids_{"SG007"});
  EXPECT_EQ(Ids({Service("A", std::string("{") + kBudget + ", " + hedge + "}")}), Ids_{});
}

TEST(LintRulesTest, SG008HedgeOfNonIdempotentCallWithoutKey) {
  auto with = [](const char* key_stage) {
    return std::string("{") + kBudget + R"(, "pipeline": {"stages": [)" + key_stage +
           R"({"hedge": {"delay": "50ms", "idempotent": true}}]}})";
  };
  EXPECT_EQ(Ids({Service("A", with(""), "POST /charge")}), Ids_{"SG008"});
  EXPECT_EQ(Ids({Service("A", with(R"("require_idempotency_key", )"), "POST /charge")}), Ids_{});
  EXPECT_EQ(Ids({Service("A", with(""), "GET /stock")}), Ids_{});
}

TEST(LintRulesTest, SG009BreakerWindowNeverReachesMinimumCalls) {
  const std::string breaker = std::string("{") + kBudget + R"(, "circuit_breaker": {"window_kind": "time_based",
      "window_size": 10, "minimum_number_of_calls": 100}, "pipeline": {"stages": ["circuit_breaker"]}})";
  EXPECT_EQ(Ids({Service("A", breaker, "GET /stock", 5)}), Ids_{"SG009"});  // 50 calls per window
  EXPECT_EQ(Ids({Service("A", breaker, "GET /stock", 10)}), Ids_{});        // 100: just enough
  EXPECT_EQ(Ids({Service("A", breaker, "GET /stock", 0)}), Ids_{});         // rate unknown
}

TEST(LintRulesTest, SG010RetryOfNonRetryableClasses) {
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("retry_on": ["transient", "permanent"])"))}), Ids_{"SG010"});
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("retry_on": ["transient", "overloaded"])"))}), Ids_{});
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("retryable_status_codes": ["UNAVAILABLE", "INVALID_ARGUMENT"])"))}),
            Ids_{"SG010"});
  EXPECT_EQ(Ids({Service("A", WithRetry(R"("retryable_status_codes": ["UNAVAILABLE"])"))}), Ids_{});
}

TEST(LintRulesTest, SG011ChaosEnabledInAShippedConfig) {
  auto chaos = [](const std::string& fields) {
    return std::string("{") + kBudget + R"(, "pipeline": {"stages": [{"retry": {}}, {"chaos": {)" + fields + "}}]}}";
  };
  EXPECT_EQ(Ids({Service("A", chaos(R"("enabled": true, "rate": 0.05)"))}, {"SG011"}), Ids_{"SG011"});
  // Shipped off, or at rate 0: switched on by a reload for a rehearsal.
  EXPECT_EQ(Ids({Service("A", chaos(R"("enabled": false, "rate": 1)"))}), Ids_{});
  EXPECT_EQ(Ids({Service("A", chaos(R"("enabled": true, "rate": 0)"))}), Ids_{});
  // Outside the retry, said why: the lint runs like any other.
  const std::string outside = std::string("{") + kBudget + R"(, "pipeline": {"stages": [
      {"chaos": {"outside_retry_because": "whole-call faults", "enabled": false}}, {"retry": {}}]}})";
  EXPECT_EQ(Ids({Service("A", outside), Service("B", outside)}), Ids_{});

  Chain chain{
      .path = "chain.json",
      .hop_reserve = 0.1,
      .services = {Service("A", chaos(R"("kind": "latency", "latency": "1s", "rate": 0.05)")), {.name = "leaf"}}};
  const LintResult r = Lint(chain, *HopsOf(chain));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].field, "destinations.d.pipeline.stages[1].chaos.enabled");
  EXPECT_EQ(r.findings[0].message,
            "A -> d: pipeline.stages[1].chaos.enabled: true at rate 0.05: every deployment of this config injects "
            "latency faults into 5% of calls");
  EXPECT_FALSE(r.has_errors());
}

TEST(LintRulesTest, MethodEntryReplacesThePipelinesRetry) {
  const std::string d = std::string("{") + kBudget +
                        R"(, "pipeline": {"stages": [{"retry": {"backoff": {"base": "1ms", "jitter": "none"}}}]},
                        "methods": {"GET /stock": {"retry": {"backoff": {"base": "1ms", "jitter": "full"}}}}})";
  EXPECT_EQ(Ids({Service("A", d, "GET /stock")}), Ids_{});
  EXPECT_EQ(Ids({Service("A", d, "GET /other")}), Ids_{"SG002"});
}

TEST(LintRulesTest, DisabledRuleIsReportedAsSuppressedWithItsReason) {
  ChainService a = Service("A", WithRetry(R"("backoff": {"base": "100ms", "jitter": "none"})"));
  a.disabled.emplace("SG002", "the only caller");
  Chain chain{.path = "chain.json", .hop_reserve = 0.1, .services = {a, {.name = "leaf"}}};
  const LintResult r = Lint(chain, *HopsOf(chain));
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.suppressed.size(), 1u);
  EXPECT_EQ(r.suppressed[0].suppressed, "the only caller");
  EXPECT_FALSE(r.has_errors());
}

TEST(LintRulesTest, MessageNamesServiceDestinationAndField) {
  Chain chain{.path = "chain.json",
              .hop_reserve = 0.1,
              .services = {Service("A", WithRetry(R"("max_attempts": 2)", "")), {.name = "leaf"}}};
  const LintResult r = Lint(chain, *HopsOf(chain));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].message, "A -> d: retry_budget: missing while the retry makes 2 attempts");
  EXPECT_EQ(r.findings[0].field, "destinations.d.retry_budget");
  EXPECT_EQ(r.findings[0].config, "A.json");
}

}  // namespace
}  // namespace stormguard::lint
