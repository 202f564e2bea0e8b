// Both edges of every range the gRPC service config reader checks: the
// last value accepted and the first refused, so a bound moved by one (a
// `>` turned into `>=`) fails here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config_test_util.h"
#include "stormguard/config/grpc_service_config.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testkit::ErrorsOf;

// A retry policy with one field replaced: `field` is "name": value.
std::string Retry(const std::string& field) {
  std::string policy = R"("maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", )"
                       R"("backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"], )"
                       R"("perAttemptRecvTimeout": "1s")";
  const std::string name = field.substr(0, field.find(':'));
  const std::size_t at = policy.find(name);
  const std::size_t end = policy.find(", \"", at);
  policy.replace(at, (end == std::string::npos ? policy.size() : end) - at, field);
  return R"({"methodConfig": [{"name": [{"service": "s"}], "retryPolicy": {)" + policy + "}}]}";
}

std::string Hedge(const std::string& fields) {
  return R"({"methodConfig": [{"name": [{"service": "s"}], "hedgingPolicy": {)" + fields + "}}]}";
}

std::string Method(const std::string& fields) {
  return R"({"methodConfig": [{"name": [{"service": "s"}], )" + fields + "}]}";
}

std::string Throttle(const std::string& tokens, const std::string& ratio) {
  return R"({"retryThrottling": {"maxTokens": )" + tokens + R"(, "tokenRatio": )" + ratio + "}}";
}

// The configuration read from `text`, which must have no error.
const DestinationConfig& Read(const std::string& text, ParsedConfig& parsed) {
  parsed = ParseConfigText(text);
  EXPECT_THAT(parsed.errors, IsEmpty()) << text;
  return parsed.config.destinations["default"];
}

const RetryOptions& RetryOf(const std::string& field, ParsedConfig& parsed) {
  static const RetryOptions kNone;
  const MethodConfig* m = FindMethod(Read(Retry(field), parsed), "s/m");
  return m != nullptr && m->retry ? m->retry->options : kNone;
}

constexpr const char* kAttempts = "methodConfig[0].retryPolicy.maxAttempts: ";

TEST(GrpcBoundsTest, MaxAttemptsFromTwoCountsUpToFive) {
  ParsedConfig p;
  EXPECT_THAT(ErrorsOf(Retry(R"("maxAttempts": 1)")), ElementsAre(std::string(kAttempts) + "must be at least 2"));
  EXPECT_EQ(RetryOf(R"("maxAttempts": 2)", p).max_attempts, 2);
  EXPECT_EQ(RetryOf(R"("maxAttempts": 5)", p).max_attempts, 5);
  EXPECT_EQ(RetryOf(R"("maxAttempts": 6)", p).max_attempts, 5);    // A6: counts as 5
  EXPECT_EQ(RetryOf(R"("maxAttempts": 3.0)", p).max_attempts, 3);  // proto3 JSON: an integral number
  EXPECT_EQ(RetryOf(R"("maxAttempts": 4294967295)", p).max_attempts, 5);
}

TEST(GrpcBoundsTest, MaxAttemptsIsAWholeNumberWithinUint32) {
  EXPECT_THAT(ErrorsOf(Retry(R"("maxAttempts": 4294967296)")),
              ElementsAre(std::string(kAttempts) + "must be at most 4294967295"));
  EXPECT_THAT(ErrorsOf(Retry(R"("maxAttempts": 1e20)")),
              ElementsAre(std::string(kAttempts) + "must be at most 4294967295"));
  EXPECT_THAT(ErrorsOf(Retry(R"("maxAttempts": 2.5)")), ElementsAre(std::string(kAttempts) + "must be a whole number"));
  EXPECT_THAT(ErrorsOf(Retry(R"("maxAttempts": -2)")), ElementsAre(std::string(kAttempts) + "must be at least 2"));
  EXPECT_THAT(ErrorsOf(Retry(R"("maxAttempts": "3")")), ElementsAre(std::string(kAttempts) + "is not a number"));
  EXPECT_THAT(ErrorsOf(Hedge(R"("maxAttempts": 1.5)")),
              ElementsAre("methodConfig[0].hedgingPolicy.maxAttempts: must be a whole number"));
  EXPECT_THAT(ErrorsOf(Hedge(R"("maxAttempts": 1)")),
              ElementsAre("methodConfig[0].hedgingPolicy.maxAttempts: must be at least 2"));
  ParsedConfig p;
  EXPECT_EQ(FindMethod(Read(Hedge(R"("maxAttempts": 2)"), p), "s/m")->hedge->options.max_hedged_attempts, 1);
}

TEST(GrpcBoundsTest, DurationsArePositiveAndAtMostAWeek) {
  for (const char* field : {"initialBackoff", "maxBackoff", "perAttemptRecvTimeout"}) {
    const std::string path = std::string("methodConfig[0].retryPolicy.") + field + ": ";
    const std::string name = std::string("\"") + field + "\": ";
    EXPECT_THAT(ErrorsOf(Retry(name + "\"0s\"")), ElementsAre(path + "must be greater than 0"));
    EXPECT_THAT(ErrorsOf(Retry(name + "\"604800.000000001s\"")), ElementsAre(path + "must be at most 604800s (168h)"));
    EXPECT_THAT(ErrorsOf(Retry(name + "\"0.000000001s\"")), IsEmpty()) << field;
    EXPECT_THAT(ErrorsOf(Retry(name + "\"604800s\"")), IsEmpty()) << field;
  }
  ParsedConfig p;
  EXPECT_EQ(RetryOf(R"("perAttemptRecvTimeout": "604800s")", p).per_attempt_timeout, 168h);
  EXPECT_THAT(ErrorsOf(Method(R"("timeout": "0s")")), ElementsAre("methodConfig[0].timeout: must be greater than 0"));
  EXPECT_THAT(ErrorsOf(Method(R"("timeout": "604800.000000001s")")),
              ElementsAre("methodConfig[0].timeout: must be at most 604800s (168h)"));
  EXPECT_EQ(FindMethod(Read(Method(R"("timeout": "604800s")"), p), "s/m")->timeout, 168h);
  EXPECT_EQ(FindMethod(Read(Method(R"("timeout": "0.000000001s")"), p), "s/m")->timeout, 1ns);
}

TEST(GrpcBoundsTest, HedgingDelayFromZeroToAWeek) {
  const std::string path = "methodConfig[0].hedgingPolicy.hedgingDelay: ";
  EXPECT_THAT(ErrorsOf(Hedge(R"("maxAttempts": 2, "hedgingDelay": "-0.000000001s")")),
              ElementsAre(path + "must not be negative"));
  EXPECT_THAT(ErrorsOf(Hedge(R"("maxAttempts": 2, "hedgingDelay": "604800.000000001s")")),
              ElementsAre(path + "must be at most 604800s (168h)"));
  ParsedConfig p;
  EXPECT_EQ(FindMethod(Read(Hedge(R"("maxAttempts": 2, "hedgingDelay": "0s")"), p), "s/m")->hedge->options.delay, 0s);
  EXPECT_EQ(FindMethod(Read(Hedge(R"("maxAttempts": 2, "hedgingDelay": "604800s")"), p), "s/m")->hedge->options.delay,
            168h);
}

TEST(GrpcBoundsTest, BackoffMultiplierFromOne) {
  const std::string path = "methodConfig[0].retryPolicy.backoffMultiplier: ";
  EXPECT_THAT(ErrorsOf(Retry(R"("backoffMultiplier": 0)")), ElementsAre(path + "must be greater than 0"));
  EXPECT_THAT(ErrorsOf(Retry(R"("backoffMultiplier": 0.999)")),
              ElementsAre(path + "below 1 is not supported (a stormguard backoff never shrinks)"));
  ParsedConfig p;
  EXPECT_EQ(RetryOf(R"("backoffMultiplier": 1)", p).backoff.multiplier, 1);
}

TEST(GrpcBoundsTest, StatusCodesAreFailuresFromOneToSixteen) {
  const std::string path = "methodConfig[0].retryPolicy.retryableStatusCodes";
  EXPECT_THAT(ErrorsOf(Retry(R"("retryableStatusCodes": [])")), ElementsAre(path + ": must be non-empty"));
  EXPECT_THAT(ErrorsOf(Retry(R"("retryableStatusCodes": [17])")),
              ElementsAre(path + "[0]: failed to parse status code"));
  const std::string ok = "[0]: must be a failure code, not OK (a success is never retried or hedged)";
  EXPECT_THAT(ErrorsOf(Retry(R"("retryableStatusCodes": ["OK"])")), ElementsAre(path + ok));
  EXPECT_THAT(ErrorsOf(Retry(R"("retryableStatusCodes": [0])")), ElementsAre(path + ok));
  EXPECT_THAT(ErrorsOf(Hedge(R"("maxAttempts": 2, "nonFatalStatusCodes": ["ok"])")),
              ElementsAre("methodConfig[0].hedgingPolicy.nonFatalStatusCodes" + ok));
  ParsedConfig p;
  const MethodConfig* m = FindMethod(Read(Retry(R"("retryableStatusCodes": [1, 16])"), p), "s/m");
  EXPECT_THAT(m->retry->retryable_status_codes, ElementsAre(StatusCode::kCancelled, StatusCode::kUnauthenticated));
  std::string codes = R"("retryableStatusCodes": ["UNAVAILABLE")";
  for (int i = 1; i < 64; ++i) codes += R"(, "UNAVAILABLE")";
  EXPECT_THAT(ErrorsOf(Retry(codes + "]")), IsEmpty());  // 64 items
  EXPECT_THAT(ErrorsOf(Retry(codes + R"(, "UNAVAILABLE"])")), ElementsAre(path + ": must have at most 64 items"));
}

// maxTokens and tokenRatio: above 0, three decimals kept, up to 1000 (the
// reader's own check for maxTokens, A6's; the budget's for tokenRatio).
TEST(GrpcBoundsTest, ThrottlingNumbersAboveZeroUpToAThousand) {
  struct Field {
    std::string path, above, decimals;
    double GrpcThrottleBudgetOptions::*member;
    std::string (*doc)(const std::string&);
  };
  const Field fields[] = {
      {"retryThrottling.maxTokens: ", "must be at most 1000", "(tokens keep three decimals)",
       &GrpcThrottleBudgetOptions::max_tokens, [](const std::string& v) { return Throttle(v, "0.1"); }},
      {"retryThrottling.tokenRatio: ", "must be in (0, 1000]", "(gRPC keeps three decimals)",
       &GrpcThrottleBudgetOptions::token_ratio, [](const std::string& v) { return Throttle("10", v); }},
  };
  for (const Field& f : fields) {
    EXPECT_THAT(ErrorsOf(f.doc("0")), ElementsAre(f.path + "must be greater than 0"));
    EXPECT_THAT(ErrorsOf(f.doc("0.0009")), ElementsAre(f.path + "must be at least 0.001 " + f.decimals));
    EXPECT_THAT(ErrorsOf(f.doc("1000.001")), ElementsAre(f.path + f.above));
    ParsedConfig p;
    EXPECT_EQ(std::get<GrpcThrottleBudgetOptions>(*Read(f.doc("1000"), p).retry_budget).*f.member, 1000);
    EXPECT_EQ(std::get<GrpcThrottleBudgetOptions>(*Read(f.doc("0.001"), p).retry_budget).*f.member, 0.001);
  }
}

TEST(GrpcBoundsTest, AtMostTenThousandMethodConfigsAndNames) {
  std::string names = R"({"service": "s0"})";
  for (std::size_t i = 1; i < kMaxMethods; ++i) names += R"(, {"service": "s)" + std::to_string(i) + R"("})";
  EXPECT_THAT(ErrorsOf(R"({"methodConfig": [{"name": [)" + names + "]}]}"), IsEmpty());
  EXPECT_THAT(ErrorsOf(R"({"methodConfig": [{"name": [)" + names + R"(, {"service": "x"}]}]})"),
              ElementsAre("methodConfig[0].name: is not an array of at most 10000 names"));
  std::string configs = "{}";
  for (std::size_t i = 1; i < kMaxMethods; ++i) configs += ", {}";
  EXPECT_THAT(ErrorsOf(R"({"methodConfig": [)" + configs + "]}"), IsEmpty());
  EXPECT_THAT(ErrorsOf(R"({"methodConfig": [)" + configs + ", {}]}"),
              ElementsAre("methodConfig: is not an array of at most 10000 method configs"));
}

}  // namespace
}  // namespace stormguard::config
