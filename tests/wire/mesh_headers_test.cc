// The Envoy sidecar's headers: x-envoy-attempt-count read as the retry flag
// (hostile values included), x-envoy-max-retries: 0 written only when asked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/wire/http_headers.h"
#include "stormguard/wire/propagation.h"

namespace stormguard {
namespace mesh_test {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using Headers = std::map<std::string, std::string>;
using Repeated = std::vector<std::pair<std::string, std::string>>;

constexpr std::int64_t kUnixMs = 1'750'000'000'000;
constexpr std::string_view kAttemptCount = "x-envoy-attempt-count";

struct HostileCount {
  std::string value;
  bool retry;  // what Extract makes of it
};

// Every value must read as x-retry-attempt's would: optional whitespace
// around it is allowed (RFC 9110), anything else that is not 1 to 18
// digits is ignored.
std::vector<HostileCount> HostileCounts() {
  return {{"", false},
          {"0", false},
          {"1", false},
          {"2", true},
          {"-1", false},
          {"+2", false},
          {" 2", true},
          {"2 ", true},
          {"\t2\t", true},
          {"99999999999999999999999", false},  // more than 18 digits: garbage
          {"999999999999999999", true},        // 18 digits: clamped to INT_MAX
          {"2x", false},
          {"0x2", false},
          {"2.0", false},
          {"2 2", false},
          {std::string("2\0", 2), false},
          {"\xff\xfe", false},
          {"\xc2\xb2", false},      // superscript two
          {"\xef\xbc\x92", false},  // fullwidth two
          {std::string(10240, '2'), false},
          {std::string(10240, 'x'), false},
          {"1, 2", true},  // a proxy's join of two lines: the retry counts
          {"1,1", false}};
}

class MeshHeadersTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  ExtractedContext ExtractFrom(const Repeated& h, const ServerLimits& limits = {},
                               const WireNames& names = kDefaultWireNames) const {
    return Extract(h, clock_.Now(), kUnixMs, limits, names);
  }
};

TEST_F(MeshHeadersTest, AttemptCountDecodesAsTheRetryAttemptDoes) {
  EXPECT_EQ(DecodeEnvoyAttemptCount("1"), 1);
  EXPECT_EQ(DecodeEnvoyAttemptCount("3"), 3);
  EXPECT_EQ(DecodeEnvoyAttemptCount(" 2 "), 2);
  EXPECT_EQ(DecodeEnvoyAttemptCount("0"), std::nullopt);
  EXPECT_EQ(DecodeEnvoyAttemptCount("999999999999999999"), INT_MAX);
  EXPECT_EQ(DecodeEnvoyAttemptCount("99999999999999999999999"), std::nullopt);
  for (const HostileCount& c : HostileCounts()) {
    EXPECT_EQ(DecodeEnvoyAttemptCount(c.value), DecodeRetryAttempt(c.value)) << c.value;
  }
  static_assert(noexcept(DecodeEnvoyAttemptCount({})));
}

TEST_F(MeshHeadersTest, AnAttemptCountAboveOneMarksTheRequestAsARetry) {
  for (const HostileCount& c : HostileCounts()) {
    const ExtractedContext in = ExtractFrom({{std::string(kAttemptCount), c.value}});
    EXPECT_EQ(in.context.incoming_is_retry, c.retry) << "'" << c.value << "'";
    // It says nothing about the budget or the key, whatever it holds.
    EXPECT_EQ(in.source, BudgetSource::kServerDefault) << c.value;
    EXPECT_EQ(in.context.deadline.Remaining(clock_.Now()), 15s) << c.value;
    EXPECT_FALSE(in.expired);
    EXPECT_TRUE(in.context.idempotency_key.empty());
  }
  EXPECT_TRUE(ExtractFrom({{"X-Envoy-Attempt-Count", "2"}}).context.incoming_is_retry);
}

TEST_F(MeshHeadersTest, ARepeatedAttemptCountIsARetryWhenAnyCopySaysSo) {
  const std::string name(kAttemptCount);
  EXPECT_TRUE(ExtractFrom({{name, "1"}, {name, "2"}}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{name, "2"}, {"Host", "a"}, {name, "1"}}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{name, "junk"}, {name, "2"}}).context.incoming_is_retry);
  EXPECT_FALSE(ExtractFrom({{name, "1"}, {name, "1"}}).context.incoming_is_retry);
  EXPECT_FALSE(ExtractFrom({{name, "0"}, {name, "-2"}, {name, ""}}).context.incoming_is_retry);
}

TEST_F(MeshHeadersTest, TheAttemptCountJoinsTheOtherRetryMarkers) {
  EXPECT_TRUE(ExtractFrom({{"x-retry-attempt", "1"}, {std::string(kAttemptCount), "2"}}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{"x-retry-attempt", "2"}, {std::string(kAttemptCount), "1"}}).context.incoming_is_retry);
  // Its budget header and it are read in the same pass.
  const ExtractedContext in =
      ExtractFrom({{"x-envoy-expected-rq-timeout-ms", "700"}, {std::string(kAttemptCount), "3"}});
  EXPECT_TRUE(in.context.incoming_is_retry);
  EXPECT_EQ(in.source, BudgetSource::kEnvoyExpectedTimeout);
  EXPECT_EQ(in.context.deadline.Remaining(clock_.Now()), 700ms);
}

TEST_F(MeshHeadersTest, AnEmptyOrOtherNameTurnsTheAttemptCountOff) {
  const Repeated h = {{std::string(kAttemptCount), "2"}};
  EXPECT_FALSE(ExtractFrom(h, {}, WireNames{.envoy_attempt_count = ""}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{"x-sidecar-try", "2"}}, {}, WireNames{.envoy_attempt_count = "x-sidecar-try"})
                  .context.incoming_is_retry);
}

TEST_F(MeshHeadersTest, NoRetriesForTheSidecarIsWrittenOnlyWhenAsked) {
  CallContext ctx;
  ctx.deadline = Deadline::After(clock_.Now(), 1s);
  Headers plain_http, plain_grpc, asked_http, asked_grpc;
  InjectHttp(ctx, clock_.Now(), kUnixMs, plain_http);
  InjectGrpc(ctx, clock_.Now(), plain_grpc);
  EXPECT_FALSE(plain_http.contains("x-envoy-max-retries"));
  EXPECT_FALSE(plain_grpc.contains("x-envoy-max-retries"));
  const InjectOptions asked{.ask_sidecar_not_to_retry = true};
  InjectHttp(ctx, clock_.Now(), kUnixMs, asked_http, asked);
  InjectGrpc(ctx, clock_.Now(), asked_grpc, asked);
  EXPECT_EQ(asked_http, (Headers{{"x-envoy-max-retries", "0"}, {"x-request-timeout-ms", "1000"}}));
  EXPECT_EQ(asked_grpc, (Headers{{"grpc-timeout", "1000000u"}, {"x-envoy-max-retries", "0"}}));
  // On every attempt, retries included, and with no deadline at all.
  ctx.attempt = 3;
  Headers retry;
  InjectHttp(CallContext{}, clock_.Now(), kUnixMs, retry, asked);
  EXPECT_EQ(retry, (Headers{{"x-envoy-max-retries", "0"}}));
  InjectHttp(ctx, clock_.Now(), kUnixMs, retry, asked);
  EXPECT_EQ(retry.at("x-envoy-max-retries"), "0");
  EXPECT_EQ(retry.at("x-retry-attempt"), "3");
}

TEST_F(MeshHeadersTest, AnEmptyNameKeepsTheRetryLimitUnwrittenEvenWhenAsked) {
  Headers h;
  InjectHttp(CallContext{}, clock_.Now(), kUnixMs, h, {.ask_sidecar_not_to_retry = true},
             WireNames{.envoy_max_retries = ""});
  InjectGrpc(CallContext{}, clock_.Now(), h, {.ask_sidecar_not_to_retry = true}, WireNames{.envoy_max_retries = ""});
  EXPECT_TRUE(h.empty());
}

TEST_F(MeshHeadersTest, TheLimitWeWriteIsNotReadAsAnything) {
  const ExtractedContext in = ExtractFrom({{"x-envoy-max-retries", "0"}, {"x-envoy-max-retries", "5"}});
  EXPECT_FALSE(in.context.incoming_is_retry);
  EXPECT_EQ(in.source, BudgetSource::kServerDefault);
}

TEST_F(MeshHeadersTest, TheEnvoyNamesMustBeLowerCaseTokens) {
  EXPECT_EQ(kDefaultWireNames.envoy_attempt_count, "x-envoy-attempt-count");
  EXPECT_EQ(kDefaultWireNames.envoy_max_retries, "x-envoy-max-retries");
  // Both transports use them, so they must also be gRPC metadata keys.
  const WireNames bad{.envoy_attempt_count = "X-Envoy-Attempt-Count", .envoy_max_retries = "x envoy"};
  EXPECT_THAT(bad.Validate(), ElementsAre("envoy_attempt_count: gRPC metadata keys must be lower-case",
                                          ::testing::HasSubstr("envoy_max_retries: must be an HTTP token")));
  EXPECT_TRUE((WireNames{.envoy_attempt_count = "", .envoy_max_retries = ""}.Validate().empty()));
}

}  // namespace mesh_test
}  // namespace stormguard
