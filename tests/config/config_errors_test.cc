// Every invalid value names its JSON path, with the options' own message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace stormguard::config {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::ErrorsOf;
using testkit::Inventory;

struct Case {
  const char* destination;  // the body of destinations.inventory
  const char* error;        // one error it must report, exactly
};

class ConfigErrorTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConfigErrorTest, NamesThePathAndTheReason) {
  EXPECT_THAT(ErrorsOf(Inventory(GetParam().destination)), Contains(std::string(GetParam().error)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, ConfigErrorTest,
    ::testing::Values(
        Case{R"({"pipeline": {"stages": [{"retry": {"max_attempts": 0}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at least 1"},
        Case{R"({"pipeline": {"stages": [{"retry": {"max_attempts": 3000000000}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.max_attempts: must be an integer in "
             "[-2147483648, 2147483647], got 3000000000"},
        Case{R"({"pipeline": {"stages": [{"retry": {"max_attempts": 1001}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at most 1000"},
        Case{R"({"pipeline": {"stages": [{"retry": {"max_attempts": 2147483647}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at most 1000"},
        Case{R"({"pipeline": {"background_job": {"max_attempts": 1001}}})",
             "destinations.inventory.pipeline.background_job.max_attempts: must be at most 1000"},
        Case{R"({"pipeline": {"stages": [{"retry": {"retryable_status_codes": ["UNAVAILABLE", "OK"]}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.retryable_status_codes[1]: must be a failure code, "
             "not OK (a success is never retried or hedged)"},
        Case{R"({"pipeline": {"stages": [{"retry": {}}, {"hedge": {"non_fatal_status_codes": [0]}}]}})",
             "destinations.inventory.pipeline.stages[1].hedge.non_fatal_status_codes[0]: must be a failure code, "
             "not OK (a success is never retried or hedged)"},
        Case{R"({"pipeline": {"stages": [{"retry": {"max_attempts": 2.5}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.max_attempts: must be an integer, got 2.5"},
        Case{R"({"pipeline": {"stages": [{"retry": {"backoff": {"multiplier": 0.5}}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.backoff.multiplier: must be a finite number >= 1"},
        Case{R"({"pipeline": {"stages": [{"retry": {"backoff": {"jitter": "wobbly"}}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.backoff.jitter: must be one of none, full, equal, "
             "decorrelated, proportional, uniform, got \"wobbly\""},
        Case{R"({"pipeline": {"stages": [{"retry": {"retry_on": ["transient", "bogus"]}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.retry_on[1]: must be one of success, transient, "
             "overloaded, permanent, ambiguous, do_not_retry, cancelled, deadline_exceeded, got \"bogus\""},
        Case{R"({"pipeline": {"stages": [{"retry": {"retry_on": ["success"]}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.retry_on: must not contain success"},
        Case{R"({"pipeline": {"stages": [{"retry": {"retryable_status_codes": ["UNAVAILABLE", 99]}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.retryable_status_codes[1]: must be a status code "
             "name (\"UNAVAILABLE\") or number (0-16), got 99"},
        Case{R"({"pipeline": {"stages": [{"retry": {"retryable_status_codes": ["unavailable", -1]}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.retryable_status_codes[1]: must be a status code "
             "name (\"UNAVAILABLE\") or number (0-16), got -1"},
        Case{R"({"pipeline": {"stages": [{"retry": {"max_attempt": 3}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.max_attempt: unknown field"},
        Case{R"({"pipeline": {"stages": [{"retry": {"idempotent": "yes"}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.idempotent: must be true or false, got \"yes\""},
        Case{R"({"pipeline": {"stages": [{"retry": {"per_attempt_timeout": 5}}]}})",
             "destinations.inventory.pipeline.stages[0].retry.per_attempt_timeout: must be a duration string such "
             "as \"250ms\" or \"1.5s\", got 5"},
        Case{R"({"pipeline": {"stages": [{"timeout": {"timeout": "-1s"}}]}})",
             "destinations.inventory.pipeline.stages[0].timeout.timeout: must not be negative, got \"-1s\""},
        Case{R"({"pipeline": {"stages": [{"timeout": {"timeout": "0s"}}]}})",
             "destinations.inventory.pipeline.stages[0].timeout.timeout: must be positive"},
        Case{R"({"pipeline": {"stages": [{"attempt_timeout": {"timeout": "1000h"}}]}})",
             "destinations.inventory.pipeline.stages[0].attempt_timeout.timeout: must be at most 168h, got "
             "\"1000h\""},
        Case{R"({"pipeline": {"stages": [{"hedge": {"max_hedged_attempts": 9}}]}})",
             "destinations.inventory.pipeline.stages[0].hedge.max_hedged_attempts: must be between 1 and 4"},
        Case{R"({"pipeline": {"stages": [{"hedge": {"latency": {"slices": 1}}}]}})",
             "destinations.inventory.pipeline.stages[0].hedge.latency.slices: must be between 2 and 64"},
        Case{R"({"pipeline": {"stages": [{"fallback": {"on_rejected_by": "bulkhead"}}]}})",
             "destinations.inventory.pipeline.stages[0].fallback.on_rejected_by: must be an array"},
        Case{R"({"pipeline": {"stages": ["circuit_breaker"]}})",
             "destinations.inventory.pipeline.stages[0]: the destination has no circuit_breaker (add "
             "\"circuit_breaker\": {...})"},
        Case{R"({"pipeline": {"stages": ["retry"]}})",
             "destinations.inventory.pipeline.stages[0]: unknown stage (use fallback, timeout, attempt_timeout, "
             "retry, hedge, chaos as {\"kind\": {options}}, or require_idempotency_key, circuit_breaker, bulkhead, "
             "rate_limiter, adaptive_concurrency, adaptive_throttle, global_rate_limit as a string)"},
        Case{R"({"pipeline": {"stages": [], "user_facing": {}}})",
             "destinations.inventory.pipeline: must be an object with exactly one key, \"stages\" or a preset"},
        Case{R"({"pipeline": {"payment": {}}})",
             "destinations.inventory.pipeline.payment.promised_timeout: must be positive"},
        Case{R"({"pipeline": {"background_job": {"max_attempts": 0}}})",
             "destinations.inventory.pipeline.background_job.max_attempts: must be at least 1"},
        Case{R"({"pipeline": {"canary": {}}})",
             "destinations.inventory.pipeline.canary: unknown pipeline (use stages, user_facing, background_job, "
             "third_party_api, payment or high_fan_out)"},
        Case{R"({"retry_budget": {"token_bucket": {"max_tokens": 0}}})",
             "destinations.inventory.retry_budget.token_bucket.max_tokens: must be in [1, 1e9]"},
        Case{R"({"retry_budget": {"grpc_throttle": {"max_tokens": 5000}}})",
             "destinations.inventory.retry_budget.grpc_throttle.max_tokens: must be in (0, 1000]"},
        Case{R"({"retry_budget": {"leaky": {}}})",
             "destinations.inventory.retry_budget.leaky: unknown budget (use token_bucket, grpc_throttle, ratio, "
             "concurrency or failure_rate_gate)"},
        Case{R"({"circuit_breaker": {"failure_rate_threshold": 1.5}})",
             "destinations.inventory.circuit_breaker.failure_rate_threshold: must be in (0, 1], got 1.5"},
        Case{R"({"circuit_breaker": {"wait_in_open_backoff": {"cap": "0s"}}})",
             "destinations.inventory.circuit_breaker.wait_in_open_backoff.cap: must be positive"},
        Case{R"({"circuit_breaker": {"window_kind": "sliding"}})",
             "destinations.inventory.circuit_breaker.window_kind: must be one of count_based, time_based, got "
             "\"sliding\""},
        Case{R"({"bulkhead": {"max_concurrent": 0}})",
             "destinations.inventory.bulkhead.max_concurrent: must be at least 1"},
        Case{R"({"bulkhead": {"stripes": 4}})", "destinations.inventory.bulkhead.stripes: unknown field"},
        Case{R"({"adaptive_concurrency": {"algorithm": "vegas"}})",
             "destinations.inventory.adaptive_concurrency.algorithm: must be one of aimd, gradient, got \"vegas\""},
        Case{R"({"methods": {"GET /stock": {"timeout": "0s"}}})",
             "destinations.inventory.methods[\"GET /stock\"].timeout: must be positive"},
        Case{R"({"methods": {"GET /stock": {"retry": {"max_attempts": -1}}}})",
             "destinations.inventory.methods[\"GET /stock\"].retry.max_attempts: must be at least 1"},
        Case{R"({"methods": {"GET /stock": {"retries": 3}}})",
             "destinations.inventory.methods[\"GET /stock\"].retries: unknown field"},
        Case{R"({"methods": {"": {}}})", "destinations.inventory.methods[\"\"]: a name must have 1 to 256 bytes"},
        Case{R"({"circuitbreaker": {}})", "destinations.inventory.circuitbreaker: unknown field"},
        Case{R"([])", "destinations.inventory: must be an object, got []"}));

TEST(ConfigErrorsTest, ReportsEveryErrorAtOnce) {
  EXPECT_THAT(ErrorsOf(Inventory(R"({"bulkhead": {"max_concurrent": 0, "max_wait": "-1ms"},
                                      "rate_limiter": {"rate": 0}, "typo": 1})")),
              ElementsAre(HasSubstr("bulkhead.max_wait: must not be negative"),
                          "destinations.inventory.bulkhead.max_concurrent: must be at least 1",
                          HasSubstr("destinations.inventory.rate_limiter.rate: "),
                          "destinations.inventory.typo: unknown field"));
}

TEST(ConfigErrorsTest, TheDocumentNeedsDestinationsAndNothingElse) {
  EXPECT_THAT(ErrorsOf("{}"), ElementsAre("destinations: missing (the config's destinations, by name)"));
  EXPECT_THAT(ErrorsOf(R"({"destinations": {}, "version": 2})"), ElementsAre("version: unknown field"));
  EXPECT_THAT(ErrorsOf("[1]"), ElementsAre("document: must be an object"));
  EXPECT_THAT(ErrorsOf(R"({"destinations": {"a": {}}})"), ::testing::IsEmpty());
}

TEST(ConfigErrorsTest, ParseConfigJoinsTheErrorsIntoOneStatus) {
  const Result<Config> c = ParseConfig(Inventory(R"({"bulkhead": {"max_concurrent": 0}, "x": 1})"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(),
            "invalid config: destinations.inventory.bulkhead.max_concurrent: must be at "
            "least 1; destinations.inventory.x: unknown field");
}

}  // namespace
}  // namespace stormguard::config
