// gRPC service configs read verbatim and mapped as gRFC A6 specifies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "stormguard/config/grpc_service_config.h"
#include "stormguard/config/status_codes.h"
#include "stormguard/core/clock.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using testkit::ErrorsOf;

// The shape of A6's examples (its retry policy, its hedging policy and its
// throttling numbers), plus a transport field gRPC configs often carry.
constexpr std::string_view kA6 = R"({
  "loadBalancingPolicy": "round_robin",
  "methodConfig": [
    {"name": [{"service": "grpc.testing.TestService", "method": "UnaryCall"}],
     "timeout": "2s", "waitForReady": true,
     "retryPolicy": {"maxAttempts": 9, "initialBackoff": "0.1s", "maxBackoff": "1s",
                     "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "resource_exhausted", 10]}},
    {"name": [{"service": "grpc.testing.TestService"}],
     "hedgingPolicy": {"maxAttempts": 4, "hedgingDelay": "0.5s",
                       "nonFatalStatusCodes": ["UNAVAILABLE", "INTERNAL", "ABORTED"]}},
    {"name": [{}], "timeout": "10s"}],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}})";

TEST(GrpcServiceConfigTest, A6ExampleMapsAsGrpcSpecifies) {
  const ParsedConfig parsed = ParseConfigText(kA6, "test-server");
  ASSERT_THAT(parsed.errors, ::testing::IsEmpty());
  EXPECT_EQ(parsed.format, ConfigFormat::kGrpcServiceConfig);
  const DestinationConfig& d = parsed.config.destinations.at("test-server");

  const MethodConfig* unary = FindMethod(d, "grpc.testing.TestService/UnaryCall");
  ASSERT_TRUE(unary && unary->retry);
  EXPECT_EQ(unary->timeout, 2s);
  const RetryOptions& r = unary->retry->options;
  EXPECT_EQ(r.max_attempts, 5);  // 9, capped silently
  EXPECT_EQ(r.backoff.kind, BackoffKind::kExponential);
  EXPECT_EQ(r.backoff.base, 100ms);
  EXPECT_EQ(r.backoff.cap, 1s);
  EXPECT_EQ(r.backoff.multiplier, 2);
  EXPECT_EQ(r.backoff.jitter, Jitter::kProportional);
  EXPECT_EQ(r.backoff.proportion, 0.2);
  EXPECT_TRUE(r.idempotent);
  EXPECT_THAT(unary->retry->retryable_status_codes,
              ElementsAre(StatusCode::kUnavailable, StatusCode::kResourceExhausted, StatusCode::kAborted));
  EXPECT_TRUE(RetryPolicy::Create(r).ok());

  const MethodConfig* other = FindMethod(d, "grpc.testing.TestService/StreamingCall");
  ASSERT_TRUE(other && other->hedge);
  EXPECT_FALSE(other->retry.has_value());
  EXPECT_EQ(other->hedge->options.max_hedged_attempts, 3);
  EXPECT_EQ(other->hedge->options.delay, 500ms);
  EXPECT_THAT(other->hedge->non_fatal_status_codes,
              ElementsAre(StatusCode::kUnavailable, StatusCode::kInternal, StatusCode::kAborted));
  EXPECT_TRUE(HedgePolicy::Create(other->hedge->options).ok());

  EXPECT_EQ(FindMethod(d, "other.Service/Call")->timeout, 10s);
}

TEST(GrpcServiceConfigTest, ThrottlingIsTheExactGrpcBudget) {
  const Result<Config> c = ParseConfig(kA6);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const auto& options = std::get<GrpcThrottleBudgetOptions>(*c->destinations.at("default").retry_budget);
  auto budget = GrpcThrottleBudget::Create(options);
  ASSERT_TRUE(budget.ok());
  EXPECT_EQ((*budget)->max_milli_tokens(), 10'000);
  EXPECT_EQ((*budget)->milli_token_ratio(), 100);
  // gRPC: retries only while tokens > maxTokens / 2; each failure takes 1.
  const TimePoint now{};
  for (int i = 0; i < 4; ++i) (*budget)->RecordFailure(now);
  EXPECT_TRUE((*budget)->TryAcquireRetry(now));  // 6 > 5
  (*budget)->RecordFailure(now);
  EXPECT_FALSE((*budget)->TryAcquireRetry(now));  // 5 is not > 5
  (*budget)->RecordSuccess(now);                  // + 0.1
  EXPECT_TRUE((*budget)->TryAcquireRetry(now));   // 5.1 > 5
}

TEST(GrpcServiceConfigTest, WritesOurFormatThatReadsBackTheSame) {
  const Result<Config> c = ParseConfig(kA6, "test-server");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const ParsedConfig again = ParseConfigText(ToJson(*c));
  ASSERT_THAT(again.errors, ::testing::IsEmpty());
  EXPECT_EQ(again.format, ConfigFormat::kStormguard);
  EXPECT_EQ(ToJson(again.config), ToJson(*c));
}

TEST(GrpcServiceConfigTest, TokenRatioKeepsThreeDecimals) {
  const Result<Config> c = ParseConfig(R"({"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.5466}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const auto& options = std::get<GrpcThrottleBudgetOptions>(*c->destinations.at("default").retry_budget);
  EXPECT_EQ((*GrpcThrottleBudget::Create(options))->milli_token_ratio(), 546);
}

TEST(GrpcServiceConfigTest, StatusCodesRetriedAreExactlyTheListedOnes) {
  const StatusCodeClassifier c({StatusCode::kUnavailable, StatusCode::kAborted});
  EXPECT_EQ(c.Classify(Status::Unavailable("x")), OutcomeClass::kTransient);
  EXPECT_EQ(c.Classify(Status::Aborted("x")), OutcomeClass::kTransient);
  EXPECT_EQ(c.Classify(Status::Internal("x")), OutcomeClass::kPermanent);
  EXPECT_EQ(c.Classify(Status::ResourceExhausted("x")), OutcomeClass::kPermanent);
  EXPECT_EQ(c.Classify(Status::Cancelled("x")), OutcomeClass::kCancelled);
  EXPECT_EQ(c.Classify(Status::Ok()), OutcomeClass::kSuccess);
  EXPECT_EQ(c.Classify(Status::Unavailable("x").WithHints({.do_not_retry = true})), OutcomeClass::kDoNotRetry);
}

TEST(GrpcServiceConfigTest, StatusCodeNamesInAnyCaseAndNumbers) {
  for (int i = 0; i < kStatusCodeCount; ++i) {
    const auto code = static_cast<StatusCode>(i);
    std::string lower(StatusCodeName(code));
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(StatusCodeFromName(StatusCodeName(code)), code);
    EXPECT_EQ(StatusCodeFromName(lower), code);
    EXPECT_EQ(StatusCodeFromNumber(i), code);
  }
  EXPECT_EQ(StatusCodeFromName("UNAVAILABLE "), std::nullopt);
  EXPECT_EQ(StatusCodeFromNumber(17), std::nullopt);
  EXPECT_EQ(StatusCodeFromNumber(-1), std::nullopt);
}

TEST(GrpcServiceConfigTest, TheCppRetryExampleReads) {
  // gRPC C++'s retry example: a service-wide name, waitForReady, multiplier 1.
  const Result<Config> c = ParseConfig(R"({"methodConfig": [{"name": [{"service": "helloworld.Greeter"}],
      "waitForReady": true, "retryPolicy": {"maxAttempts": 4, "initialBackoff": "1s", "maxBackoff": "120s",
      "backoffMultiplier": 1.0, "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const MethodConfig* m = FindMethod(c->destinations.at("default"), "helloworld.Greeter/SayHello");
  ASSERT_TRUE(m && m->retry);
  EXPECT_EQ(m->retry->options.max_attempts, 4);
  EXPECT_EQ(m->retry->options.backoff.cap, 120s);
}

struct Rejection {
  const char* config;
  const char* error;
};

class GrpcRejectionTest : public ::testing::TestWithParam<Rejection> {};

TEST_P(GrpcRejectionTest, RejectsWithGrpcsFieldPath) {
  EXPECT_THAT(ErrorsOf(GetParam().config), Contains(std::string(GetParam().error)));
}

#define SG_RETRY(fields) R"({"methodConfig": [{"name": [{"service": "s"}], "retryPolicy": {)" fields R"(}}]})"
#define SG_VALID_RETRY                                                                          \
  R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, )" \
  R"("retryableStatusCodes": ["UNAVAILABLE"])"

INSTANTIATE_TEST_SUITE_P(
    A6, GrpcRejectionTest,
    ::testing::Values(
        Rejection{SG_RETRY(R"("maxAttempts": 1, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.maxAttempts: must be at least 2"},
        Rejection{SG_RETRY(R"("initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
                              "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.maxAttempts: field not present"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.initialBackoff: Not a duration (no s suffix)"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "0s",
                              "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.maxBackoff: must be greater than 0"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "-1s", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.initialBackoff: must be greater than 0"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 0, "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.backoffMultiplier: must be greater than 0"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 0.5, "retryableStatusCodes": ["UNAVAILABLE"])"),
                  "methodConfig[0].retryPolicy.backoffMultiplier: below 1 is not supported (a stormguard "
                  "backoff never shrinks)"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": [])"),
                  "methodConfig[0].retryPolicy.retryableStatusCodes: must be non-empty"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "NOPE"])"),
                  "methodConfig[0].retryPolicy.retryableStatusCodes[1]: failed to parse status code"},
        Rejection{SG_RETRY(R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": [17])"),
                  "methodConfig[0].retryPolicy.retryableStatusCodes[0]: failed to parse status code"},
        Rejection{SG_RETRY(SG_VALID_RETRY R"(, "maxAttemps": 3)"),
                  "methodConfig[0].retryPolicy.maxAttemps: unknown field"},
        Rejection{R"({"methodConfig": [{"name": [{"service": "s"}],
                      "retryPolicy": {)" SG_VALID_RETRY R"(},
                      "hedgingPolicy": {"maxAttempts": 2}}]})",
                  "methodConfig[0]: only one of retryPolicy and hedgingPolicy may be set"},
        Rejection{R"({"methodConfig": [{"name": [{"service": "s"}], "hedgingPolicy": {"maxAttempts": 0}}]})",
                  "methodConfig[0].hedgingPolicy.maxAttempts: must be at least 2"},
        Rejection{R"({"methodConfig": [{"name": [{"service": "s"}],
                      "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "-1s"}}]})",
                  "methodConfig[0].hedgingPolicy.hedgingDelay: must not be negative"},
        Rejection{R"({"methodConfig": [{"name": [{"service": "s"}],
                      "hedgingPolicy": {"maxAttempts": 3, "nonFatalStatusCodes": ["bogus"]}}]})",
                  "methodConfig[0].hedgingPolicy.nonFatalStatusCodes[0]: failed to parse status code"},
        Rejection{R"({"methodConfig": [{"name": [{"service": "s"}]}, {"name": [{"service": "s"}]}]})",
                  "methodConfig[1].name[0]: multiple method configs with same name"},
        Rejection{R"({"methodConfig": [{"name": [{"method": "m"}]}]})",
                  "methodConfig[0].name[0].method: method name populated without service name"},
        Rejection{R"({"methodConfig": [{"name": [{"service": "s"}], "timeout": "1"}]})",
                  "methodConfig[0].timeout: Not a duration (no s suffix)"},
        Rejection{R"({"retryThrottling": {"maxTokens": 0, "tokenRatio": 0.1}})",
                  "retryThrottling.maxTokens: must be greater than 0"},
        Rejection{R"({"retryThrottling": {"maxTokens": 5000, "tokenRatio": 0.1}})",
                  "retryThrottling.maxTokens: must be at most 1000"},
        Rejection{R"({"retryThrottling": {"maxTokens": 10, "tokenRatio": -1}})",
                  "retryThrottling.tokenRatio: must be greater than 0"},
        Rejection{R"({"retryThrottling": {"maxTokens": 10}})", "retryThrottling.tokenRatio: field not present"},
        Rejection{R"({"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.0001}})",
                  "retryThrottling.tokenRatio: must be at least 0.001 (gRPC keeps three decimals)"},
        Rejection{R"({"methodConfig": [], "retryThrotling": {}})", "retryThrotling: unknown field"}));

TEST(GrpcServiceConfigTest, TheDestinationNeedsAName) {
  EXPECT_THAT(ParseConfigText(R"({"methodConfig": []})", "").errors,
              ElementsAre("grpc_destination: a name must have 1 to 256 bytes"));
}

TEST(GrpcServiceConfigTest, ReportsEveryRejectionAtOnce) {
  EXPECT_THAT(ErrorsOf(R"({"retryThrottling": {"maxTokens": 0, "tokenRatio": 0}})"),
              ElementsAre("retryThrottling.maxTokens: must be greater than 0",
                          "retryThrottling.tokenRatio: must be greater than 0"));
}

}  // namespace
}  // namespace stormguard::config
