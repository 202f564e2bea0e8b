// Every option of every policy and preset, set away from its default, read
// and written back unchanged. The writer emits every field, so a field the
// document below leaves out, or one the reader drops, fails the comparison.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config_test_util.h"
#include "stormguard/config/config.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kRetry = R"({
  "max_attempts": 4,
  "backoff": {"kind": "linear", "base": "50ms", "step": "25ms", "multiplier": 1.5, "cap": "2s",
              "jitter": "uniform", "proportion": 0.3, "spread": "10ms", "decorrelated_growth": 2.5},
  "per_attempt_timeout": "300ms", "min_attempt_time": "5ms", "retry_on": ["transient", "overloaded"],
  "idempotent": true, "retry_when_serving_a_retry": true, "max_pushback": "10s",
  "retryable_status_codes": ["ABORTED", "UNAVAILABLE"]})";

constexpr std::string_view kHedge = R"({
  "delay": "40ms", "max_hedged_attempts": 2, "latency": {"window": "5s", "slices": 4, "min_samples": 30},
  "quantile": 0.9, "min_delay": "2ms", "max_delay": "5s", "delay_refresh": "50ms",
  "non_fatal": ["transient", "overloaded"], "idempotent": true, "hedge_when_serving_a_retry": true,
  "min_attempt_time": "3ms", "max_pushback": "20s", "non_fatal_status_codes": ["UNAVAILABLE"]})";

std::string FullDocument() {
  const std::string retry(kRetry);
  const std::string hedge(kHedge);
  return R"({"destinations": {
  "inventory": {
    "retry_budget": {"token_bucket": {"max_tokens": 20, "token_ratio": 0.2}},
    "circuit_breaker": {
      "failure_rate_threshold": 0.4, "slow_call_rate_threshold": 0.8, "slow_call_duration": "1s",
      "window_kind": "time_based", "window_size": 30, "minimum_number_of_calls": 20, "wait_in_open": "10s",
      "wait_in_open_backoff": {"kind": "exponential", "base": "1s", "step": "0s", "multiplier": 3, "cap": "1m",
                               "jitter": "none", "proportion": 0.1, "spread": "0s", "decorrelated_growth": 4},
      "permitted_calls_in_half_open": 3, "automatic_transition_from_open_to_half_open": true,
      "max_wait_in_half_open": "5s", "failure_outcomes": ["transient", "ambiguous"],
      "ignored_outcomes": ["permanent", "cancelled"]},
    "bulkhead": {"max_concurrent": 10, "max_wait": "20ms"},
    "rate_limiter": {"rate": 100.5, "burst": 20, "max_wait": "5ms"},
    "adaptive_concurrency": {"algorithm": "aimd",
      "aimd": {"initial_limit": 30, "min_limit": 10, "max_limit": 300, "backoff_ratio": 0.8, "timeout": "2s"},
      "gradient": {"initial_limit": 40, "min_limit": 5, "max_limit": 400, "smoothing": 0.3, "queue_size": 6,
                   "rtt_tolerance": 2.5, "long_window": 300}},
    "adaptive_throttle": {"window": "30s", "k": 1.5, "min_requests": 40, "reject_on": ["overloaded", "do_not_retry"],
                          "seed": 17},
    "pipeline": {"stages": [
      {"fallback": {"on_outcomes": ["overloaded", "deadline_exceeded"], "on_any_rejection": false,
                    "on_rejected_by": ["bulkhead", "rate_limiter"], "skip_when_remaining_below": "20ms"}},
      {"timeout": {"timeout": "800ms", "abandon_after": "20ms"}},
      {"retry": )" +
         retry + R"(},
      "circuit_breaker", "bulkhead", "rate_limiter", "adaptive_concurrency", "adaptive_throttle",
      {"hedge": )" +
         hedge + R"(},
      "require_idempotency_key",
      {"attempt_timeout": {"timeout": "200ms", "abandon_after": "5ms"}}]},
    "methods": {
      "GET /stock": {"timeout": "250ms", "retry": )" +
         retry + R"(, "hedge": )" + hedge + R"(},
      "inventory.Stock/*": {"timeout": "1s"},
      "*": {"timeout": "2s"}}},
  "pricing": {"retry_budget": {"grpc_throttle": {"max_tokens": 50, "token_ratio": 0.5}},
              "pipeline": {"user_facing": {"at_entry": false, "entry_timeout": "2s", "max_attempts": 2,
                                           "idempotent": true}}},
  "jobs": {"retry_budget": {"ratio": {"ttl": "5s", "min_retries_per_second": 5, "retry_ratio": 0.1, "buckets": 5}},
           "pipeline": {"background_job": {"attempt_timeout": "10s", "max_attempts": 5}}},
  "partner": {"retry_budget": {"concurrency": {"retry_fraction": 0.3, "min_retry_concurrency": 2}},
              "pipeline": {"third_party_api": {"attempt_timeout": "3s", "max_attempts": 2}}},
  "payments": {"retry_budget": {"failure_rate_gate": {"window": "20s", "buckets": 20,
                                                      "failure_rate_threshold": 0.2, "min_requests": 5}},
               "pipeline": {"payment": {"promised_timeout": "5s"}}},
  "search": {"pipeline": {"high_fan_out": {"per_downstream_timeout": "80ms", "skip_when_remaining_below": "10ms"}}}
}})";
}

TEST(ConfigRoundTripTest, EveryOptionReadsAndWritesBackUnchanged) {
  const std::string text = FullDocument();
  const ParsedConfig parsed = ParseConfigText(text);
  ASSERT_THAT(parsed.errors, ::testing::IsEmpty());
  EXPECT_EQ(parsed.format, ConfigFormat::kStormguard);
  EXPECT_EQ(nlohmann::json::parse(ToJson(parsed.config)), nlohmann::json::parse(text));
  // And once more from our own output.
  const Result<Config> again = ParseConfig(ToJson(parsed.config));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ToJson(*again), ToJson(parsed.config));
}

TEST(ConfigRoundTripTest, ValuesLandInTheOptionsTheyName) {
  const Result<Config> c = ParseConfig(FullDocument());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const DestinationConfig& inv = c->destinations.at("inventory");
  ASSERT_EQ(inv.pipeline.stages.size(), 11u);
  const RetryConfig& retry = *inv.pipeline.stages[2].options<RetryConfig>();
  EXPECT_EQ(inv.pipeline.stages[2].kind(), "retry");
  EXPECT_EQ(retry.options.max_attempts, 4);
  EXPECT_EQ(retry.options.backoff.kind, BackoffKind::kLinear);
  EXPECT_EQ(retry.options.backoff.step, 25ms);
  EXPECT_EQ(retry.options.backoff.jitter, Jitter::kUniform);
  EXPECT_EQ(retry.options.per_attempt_timeout, 300ms);
  EXPECT_EQ(retry.options.retry_on, (OutcomeSet{OutcomeClass::kTransient, OutcomeClass::kOverloaded}));
  EXPECT_EQ(retry.retryable_status_codes, (std::vector{StatusCode::kAborted, StatusCode::kUnavailable}));
  const HedgeConfig& hedge = *inv.pipeline.stages[8].options<HedgeConfig>();
  EXPECT_EQ(hedge.options.delay, 40ms);
  ASSERT_TRUE(hedge.latency.has_value());
  EXPECT_EQ(hedge.latency->slices, 4);
  EXPECT_EQ(inv.pipeline.stages[3].kind(), "circuit_breaker");
  EXPECT_EQ(inv.pipeline.stages[7].kind(), "adaptive_throttle");
  EXPECT_EQ(inv.pipeline.stages[10].kind(), "attempt_timeout");
  EXPECT_EQ(inv.pipeline.stages[10].options<TimeoutConfig>()->timeout.timeout, 200ms);
  ASSERT_TRUE(inv.circuit_breaker && inv.circuit_breaker->wait_in_open_backoff);
  EXPECT_EQ(inv.circuit_breaker->window_kind, WindowKind::kTimeBased);
  EXPECT_EQ(inv.circuit_breaker->wait_in_open_backoff->options().cap, 1min);
  EXPECT_EQ(inv.adaptive_concurrency->algorithm, LimitKind::kAimd);
  EXPECT_EQ(inv.adaptive_concurrency->gradient.long_window, 300);
  EXPECT_EQ(inv.rate_limiter->rate, 100.5);
  EXPECT_EQ(inv.adaptive_throttle->window, 30s);
  EXPECT_TRUE(inv.adaptive_throttle->reject_on.contains(OutcomeClass::kDoNotRetry));
  ASSERT_TRUE(inv.retry_budget.has_value());
  EXPECT_EQ(std::get<TokenBucketBudgetOptions>(*inv.retry_budget).max_tokens, 20);
  EXPECT_EQ(std::get<GrpcThrottleBudgetOptions>(*c->destinations.at("pricing").retry_budget).token_ratio, 0.5);
  EXPECT_EQ(std::get<RatioBudgetOptions>(*c->destinations.at("jobs").retry_budget).ttl, 5s);
  const PresetConfig& payment = *c->destinations.at("payments").pipeline.preset;
  EXPECT_EQ(payment.name, "payment");
  EXPECT_EQ(payment.parameters["promised_timeout"], "5s");
  EXPECT_EQ(c->destinations.at("pricing").pipeline.preset->parameters["at_entry"], false);
}

TEST(ConfigRoundTripTest, OmittedFieldsKeepTheOptionsDefaults) {
  const Result<Config> c = ParseConfig(R"({"destinations": {"a": {"pipeline": {"stages": [{"retry": {}}]}}}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const RetryOptions& got = c->destinations.at("a").pipeline.stages[0].options<RetryConfig>()->options;
  const RetryOptions defaults;
  EXPECT_EQ(got.max_attempts, defaults.max_attempts);
  EXPECT_EQ(got.backoff.cap, defaults.backoff.cap);
  EXPECT_EQ(got.per_attempt_timeout, kInfiniteDuration);
  EXPECT_EQ(got.retry_on, defaults.retry_on);
}

TEST(ConfigMethodLookupTest, ExactThenServiceWildcardThenDefault) {
  const Result<Config> c = ParseConfig(testkit::Inventory(R"({"methods": {
      "pkg.Svc/Get": {"timeout": "1s"}, "pkg.Svc/*": {"timeout": "2s"}, "*": {"timeout": "3s"}}})"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const DestinationConfig& d = c->destinations.at("inventory");
  EXPECT_EQ(FindMethod(d, "pkg.Svc/Get")->timeout, 1s);
  EXPECT_EQ(FindMethod(d, "pkg.Svc/Put")->timeout, 2s);
  EXPECT_EQ(FindMethod(d, "other.Svc/Get")->timeout, 3s);
  EXPECT_EQ(FindMethod(d, "no-slash")->timeout, 3s);
  DestinationConfig bare;
  EXPECT_EQ(FindMethod(bare, "pkg.Svc/Get"), nullptr);
}

}  // namespace
}  // namespace stormguard::config
