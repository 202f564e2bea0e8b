#include "stormguard/wire/propagation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stormguard/core/clock.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using Headers = std::map<std::string, std::string>;

constexpr std::int64_t kNowUnixMs = 1'750'000'000'000;  // Sun, 15 Jun 2025 15:06:40 GMT

RetryHints StopHints() {
  RetryHints h;
  h.do_not_retry = true;
  return h;
}

RetryHints PauseHints(Duration pause) {
  RetryHints h;
  h.pushback = pause;
  return h;
}

class PropagationTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  TimePoint Now() const { return clock_.Now(); }
  // CallContext and RetryHints are filled field by field: GCC 12 warns on
  // designated initializers that skip members without default initializers.
  CallContext WithBudget(Duration budget) const {
    CallContext ctx;
    ctx.deadline = Deadline::After(Now(), budget);
    return ctx;
  }
  ExtractedContext ExtractFrom(const Headers& h, const ServerLimits& limits = {}) const {
    return Extract(h, Now(), kNowUnixMs, limits);
  }
};

// ---- client side ------------------------------------------------------------

TEST_F(PropagationTest, InjectSendsRemainingBudgetAsRelativeMilliseconds) {
  Headers h;
  const CallContext ctx = WithBudget(842ms);
  InjectHttp(ctx, Now(), kNowUnixMs, h);
  EXPECT_EQ(h, (Headers{{"x-request-timeout-ms", "842"}}));
  clock_.Advance(42ms);
  InjectHttp(ctx, Now(), kNowUnixMs, h);
  EXPECT_EQ(h.at("x-request-timeout-ms"), "800");
}

TEST_F(PropagationTest, InjectOmitsTheBudgetWhenTheDeadlineIsInfinite) {
  Headers h;
  InjectHttp(CallContext{}, Now(), kNowUnixMs, h);
  InjectGrpc(CallContext{}, Now(), h);
  EXPECT_TRUE(h.empty());
}

TEST_F(PropagationTest, InjectSendsZeroOrOneNanosecondWhenTheBudgetIsSpent) {
  Headers h;
  const CallContext ctx = WithBudget(10ms);
  clock_.Advance(1s);
  InjectHttp(ctx, Now(), kNowUnixMs, h);
  InjectGrpc(ctx, Now(), h);
  EXPECT_EQ(h.at("x-request-timeout-ms"), "0");
  EXPECT_EQ(h.at("grpc-timeout"), "1n");
}

TEST_F(PropagationTest, InjectKeepsThisHopsReserve) {
  Headers h;
  const InjectOptions keep{.reserve = {.fraction = 0.1, .overhead = 20ms}};
  InjectHttp(WithBudget(1000ms), Now(), kNowUnixMs, h, keep);
  InjectGrpc(WithBudget(1000ms), Now(), h, keep);
  EXPECT_EQ(h.at("x-request-timeout-ms"), "880");
  EXPECT_EQ(h.at("grpc-timeout"), "880000u");
}

TEST_F(PropagationTest, InjectWritesTheAbsoluteDeadlineOnlyWhenAsked) {
  Headers h;
  InjectHttp(WithBudget(842ms), Now(), kNowUnixMs, h, {.write_absolute_deadline = true});
  EXPECT_EQ(h.at("x-request-deadline"), "1750000000842");
  EXPECT_EQ(h.at("x-request-timeout-ms"), "842");
}

TEST_F(PropagationTest, InjectMarksOwnRetriesAndOptionallyAnIncomingRetry) {
  CallContext ctx;
  ctx.incoming_is_retry = true;
  Headers h;
  InjectHttp(ctx, Now(), kNowUnixMs, h);
  EXPECT_FALSE(h.contains("x-retry-attempt"));
  InjectHttp(ctx, Now(), kNowUnixMs, h, {.propagate_incoming_retry = true});
  EXPECT_EQ(h.at("x-retry-attempt"), "2");
  ctx.attempt = 3;
  InjectHttp(ctx, Now(), kNowUnixMs, h, {.propagate_incoming_retry = true});
  EXPECT_EQ(h.at("x-retry-attempt"), "3");
}

TEST_F(PropagationTest, InjectGrpcWritesTimeoutPreviousAttemptsAndKey) {
  CallContext ctx = WithBudget(1500ms);
  ctx.attempt = 3;
  ctx.idempotency_key = "order-17";
  Headers h;
  InjectGrpc(ctx, Now(), h);
  EXPECT_EQ(h,
            (Headers{
                {"grpc-previous-rpc-attempts", "2"}, {"grpc-timeout", "1500000u"}, {"idempotency-key", "order-17"}}));
}

TEST_F(PropagationTest, InjectNeverSendsAKeyThatCouldSplitTheHeader) {
  CallContext ctx;
  ctx.idempotency_key = "abc\r\nX-Evil: 1";
  Headers h;
  InjectHttp(ctx, Now(), kNowUnixMs, h);
  EXPECT_TRUE(h.empty());
  ctx.idempotency_key = "abc";
  InjectHttp(ctx, Now(), kNowUnixMs, h);
  EXPECT_EQ(h.at("Idempotency-Key"), "abc");
}

TEST_F(PropagationTest, AnEmptyNameTurnsAHeaderOff) {
  Headers h;
  CallContext ctx = WithBudget(1s);
  ctx.attempt = 2;
  InjectHttp(ctx, Now(), kNowUnixMs, h, {}, WireNames{.retry_attempt = ""});
  EXPECT_EQ(h, (Headers{{"x-request-timeout-ms", "1000"}}));
  EXPECT_EQ(Extract(h, Now(), kNowUnixMs, {}, WireNames{.request_timeout_ms = ""}).source,
            BudgetSource::kServerDefault);
}

TEST_F(PropagationTest, RenamedHeadersAreWrittenAndRead) {
  const WireNames names{.request_timeout_ms = "x-budget-ms", .retry_attempt = "x-try"};
  CallContext ctx = WithBudget(300ms);
  ctx.attempt = 2;
  Headers h;
  InjectHttp(ctx, Now(), kNowUnixMs, h, {}, names);
  EXPECT_EQ(h, (Headers{{"x-budget-ms", "300"}, {"x-try", "2"}}));
  const ExtractedContext in = Extract(h, Now(), kNowUnixMs, {}, names);
  EXPECT_EQ(in.context.deadline.Remaining(Now()), 300ms);
  EXPECT_TRUE(in.context.incoming_is_retry);
}

// ---- server side ------------------------------------------------------------

TEST_F(PropagationTest, ExtractTurnsTheRelativeBudgetIntoALocalDeadline) {
  const ExtractedContext in = ExtractFrom({{"X-Request-Timeout-Ms", "842"}});
  EXPECT_EQ(in.context.deadline, Deadline::After(Now(), 842ms));
  EXPECT_EQ(in.source, BudgetSource::kRequestTimeout);
  EXPECT_FALSE(in.expired);
  EXPECT_FALSE(in.clamped);
  EXPECT_EQ(in.context.attempt, 1);
}

TEST_F(PropagationTest, ExtractTakesTheSmallestOfSeveralBudgets) {
  const Headers h = {{"x-request-timeout-ms", "900"},
                     {"x-request-deadline", "1750000000500"},
                     {"x-envoy-expected-rq-timeout-ms", "700"},
                     {"grpc-timeout", "2S"}};
  const ExtractedContext in = ExtractFrom(h);
  EXPECT_EQ(in.context.deadline.Remaining(Now()), 500ms);
  EXPECT_EQ(in.source, BudgetSource::kRequestDeadline);
  EXPECT_EQ(ExtractFrom({{"grpc-timeout", "250m"}, {"x-envoy-expected-rq-timeout-ms", "700"}}).source,
            BudgetSource::kGrpcTimeout);
  // Equal budgets: the header listed first in BudgetSource names the source,
  // whatever order the container keeps ("grpc-timeout" sorts first here).
  EXPECT_EQ(ExtractFrom({{"grpc-timeout", "500m"}, {"x-request-timeout-ms", "500"}}).source,
            BudgetSource::kRequestTimeout);
  EXPECT_EQ(ExtractFrom({{"x-envoy-expected-rq-timeout-ms", "700"}}).source, BudgetSource::kEnvoyExpectedTimeout);
}

TEST_F(PropagationTest, ARepeatedBudgetHeaderGivesItsSmallestValueInEitherOrder) {
  struct Case {
    std::string name, large, small;
    BudgetSource source;
  };
  const Case cases[] = {
      {"x-request-timeout-ms", "5000", "100", BudgetSource::kRequestTimeout},
      {"x-request-deadline", "1750000005000", "1750000000100", BudgetSource::kRequestDeadline},
      {"x-envoy-expected-rq-timeout-ms", "5000", "100", BudgetSource::kEnvoyExpectedTimeout},
      {"grpc-timeout", "5S", "100m", BudgetSource::kGrpcTimeout},
  };
  for (const Case& c : cases) {
    for (const bool small_first : {false, true}) {
      const std::string& first = small_first ? c.small : c.large;
      const std::string& second = small_first ? c.large : c.small;
      const std::multimap<std::string, std::string> multimap = {{c.name, first}, {c.name, second}};
      const std::vector<std::pair<std::string, std::string>> pairs = {{c.name, first}, {"Host", "a"}, {c.name, second}};
      for (const ExtractedContext& in : {Extract(multimap, Now(), kNowUnixMs), Extract(pairs, Now(), kNowUnixMs)}) {
        EXPECT_EQ(in.context.deadline.Remaining(Now()), 100ms) << c.name << " small_first=" << small_first;
        EXPECT_EQ(in.source, c.source) << c.name;
      }
    }
  }
}

TEST_F(PropagationTest, ACommaJoinedBudgetHeaderGivesItsSmallestItem) {
  // A source that folds repeated lines into one (RFC 9110 section 5.3).
  std::string joined;
  const auto lookup = [&](std::string_view name) -> std::optional<std::string_view> {
    if (name == "x-request-timeout-ms") return joined;
    return std::nullopt;
  };
  for (const char* value : {"5000, 100", "100,5000", "junk , 100 ,5000"}) {
    joined = value;
    const ExtractedContext in = Extract(lookup, Now(), kNowUnixMs);
    EXPECT_EQ(in.context.deadline.Remaining(Now()), 100ms) << value;
    EXPECT_EQ(in.source, BudgetSource::kRequestTimeout) << value;
  }
  joined = "junk, -1";
  EXPECT_EQ(Extract(lookup, Now(), kNowUnixMs).source, BudgetSource::kServerDefault);
}

TEST_F(PropagationTest, ARepeatedRetryHeaderMarksARetryInEitherOrder) {
  using Multi = std::multimap<std::string, std::string>;
  for (const std::string name : {"x-retry-attempt", "grpc-previous-rpc-attempts"}) {
    const std::string first_try = name == "x-retry-attempt" ? "1" : "0";
    const std::string retry = name == "x-retry-attempt" ? "2" : "1";
    EXPECT_TRUE(Extract(Multi{{name, first_try}, {name, retry}}, Now(), kNowUnixMs).context.incoming_is_retry);
    EXPECT_TRUE(Extract(Multi{{name, retry}, {name, first_try}}, Now(), kNowUnixMs).context.incoming_is_retry);
    EXPECT_FALSE(Extract(Multi{{name, first_try}, {name, first_try}}, Now(), kNowUnixMs).context.incoming_is_retry);
  }
}

TEST_F(PropagationTest, ExtractNeverGrantsMoreThanTheServerMaximum) {
  const ExtractedContext in = ExtractFrom({{"x-request-timeout-ms", "86400000"}});
  EXPECT_EQ(in.context.deadline.Remaining(Now()), 60s);
  EXPECT_TRUE(in.clamped);
  EXPECT_EQ(ExtractFrom({{"grpc-timeout", "99999999H"}}).context.deadline.Remaining(Now()), 60s);
  EXPECT_EQ(ExtractFrom({}, {.default_budget = 100s, .max_budget = 5s}).context.deadline.Remaining(Now()), 5s);
}

TEST_F(PropagationTest, ExtractGivesTheDefaultBudgetWhenHeadersAreMissingOrGarbage) {
  for (const Headers& h : {Headers{}, Headers{{"x-request-timeout-ms", "-5"}},
                           Headers{{"x-request-timeout-ms", "1e9"}, {"grpc-timeout", "1 S"}}}) {
    const ExtractedContext in = ExtractFrom(h, {.default_budget = 3s});
    EXPECT_EQ(in.context.deadline.Remaining(Now()), 3s);
    EXPECT_EQ(in.source, BudgetSource::kServerDefault);
    EXPECT_FALSE(in.expired);
  }
}

TEST_F(PropagationTest, ExtractTrustsTheCallerOnlyWhenTheMaximumIsInfinite) {
  const ServerLimits open{.default_budget = kInfiniteDuration, .max_budget = kInfiniteDuration};
  EXPECT_TRUE(ExtractFrom({}, open).context.deadline.is_infinite());
  EXPECT_EQ(ExtractFrom({{"x-request-timeout-ms", "86400000"}}, open).context.deadline.Remaining(Now()), 24h);
}

TEST_F(PropagationTest, ExtractReportsARequestThatArrivedWithNoTimeLeft) {
  EXPECT_TRUE(ExtractFrom({{"x-request-timeout-ms", "0"}}).expired);
  EXPECT_TRUE(ExtractFrom({{"x-request-deadline", "1749999999000"}}).expired);
  EXPECT_TRUE(ExtractFrom({{"grpc-timeout", "0n"}}).expired);
  EXPECT_TRUE(ExtractFrom({{"x-request-timeout-ms", "0"}}).context.deadline.Expired(Now()));
  EXPECT_FALSE(ExtractFrom({{"x-request-timeout-ms", "1"}}).expired);
}

TEST_F(PropagationTest, ExtractSetsTheRetryFlagFromTheSecondAttemptOn) {
  EXPECT_FALSE(ExtractFrom({{"x-retry-attempt", "1"}}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{"x-retry-attempt", "2"}}).context.incoming_is_retry);
  EXPECT_FALSE(ExtractFrom({{"x-retry-attempt", "two"}}).context.incoming_is_retry);
  EXPECT_FALSE(ExtractFrom({{"grpc-previous-rpc-attempts", "0"}}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{"grpc-previous-rpc-attempts", "1"}}).context.incoming_is_retry);
  EXPECT_FALSE(ExtractFrom({{"x-envoy-attempt-count", "1"}}).context.incoming_is_retry);
  EXPECT_TRUE(ExtractFrom({{"x-envoy-attempt-count", "2"}}).context.incoming_is_retry);  // the sidecar retried
}

TEST_F(PropagationTest, ExtractCopiesOnlyABoundedPrintableIdempotencyKey) {
  EXPECT_EQ(ExtractFrom({{"idempotency-key", "order-17"}}).context.idempotency_key, "order-17");
  EXPECT_EQ(ExtractFrom({{"Idempotency-Key", std::string(300, 'k')}}).context.idempotency_key, "");
  EXPECT_EQ(ExtractFrom({{"Idempotency-Key", "abcd"}}, {.max_idempotency_key_length = 3}).context.idempotency_key, "");
  EXPECT_EQ(ExtractFrom({{"Idempotency-Key", "a\x01z"}}).context.idempotency_key, "");
}

TEST_F(PropagationTest, InjectedContextIsExtractedOnTheNextHop) {
  CallContext client = WithBudget(800ms);
  client.attempt = 2;
  client.idempotency_key = "k-1";
  Headers h;
  InjectHttp(client, Now(), kNowUnixMs, h);
  ManualClock server_clock(TimePoint(5h));  // another host: another monotonic axis
  const ExtractedContext in = Extract(h, server_clock.Now(), kNowUnixMs + 3);
  EXPECT_EQ(in.context.deadline.Remaining(server_clock.Now()), 800ms);
  EXPECT_TRUE(in.context.incoming_is_retry);
  EXPECT_EQ(in.context.idempotency_key, "k-1");
}

TEST_F(PropagationTest, ServerLimitsValidateNamesEveryBadField) {
  EXPECT_TRUE(ServerLimits{}.Validate().empty());
  const ServerLimits bad{.default_budget = 0s, .max_budget = -1s, .max_idempotency_key_length = 0};
  EXPECT_THAT(bad.Validate(), ElementsAre("default_budget: must be positive", "max_budget: must be positive",
                                          "default_budget: must not exceed max_budget",
                                          "max_idempotency_key_length: must be at least 1"));
  EXPECT_EQ(BudgetSourceName(BudgetSource::kEnvoyExpectedTimeout), "envoy_expected_timeout");
}

// ---- responses ----------------------------------------------------------------

TEST_F(PropagationTest, DoNotRetryCrossesHttpAndGrpc) {
  Headers http;
  InjectRetryHintsHttp(StopHints(), http);
  EXPECT_EQ(http, (Headers{{"x-no-retry", "1"}}));
  EXPECT_TRUE(ReadRetryHints(http, kNowUnixMs, 30s).do_not_retry);

  Headers grpc;
  InjectRetryHintsGrpc(StopHints(), grpc);
  EXPECT_EQ(grpc, (Headers{{"grpc-retry-pushback-ms", "-1"}}));
  EXPECT_TRUE(ReadRetryHints(grpc, kNowUnixMs, 30s).pushback_stop);

  RetryHints server_stop;
  server_stop.pushback_stop = true;
  Headers stop;
  InjectRetryHintsHttp(server_stop, stop);
  EXPECT_EQ(stop, (Headers{{"x-no-retry", "1"}}));
}

TEST_F(PropagationTest, PushbackCrossesHttpAndGrpc) {
  Headers http;
  InjectRetryHintsHttp(PauseHints(1500ms), http);
  EXPECT_EQ(http, (Headers{{"Retry-After", "2"}}));
  EXPECT_EQ(ReadRetryHints(http, kNowUnixMs, 30s).pushback, Duration(2s));

  Headers grpc;
  InjectRetryHintsGrpc(PauseHints(1500ms), grpc);
  EXPECT_EQ(grpc, (Headers{{"grpc-retry-pushback-ms", "1500"}}));
  const RetryHints hints = ReadRetryHints(grpc, kNowUnixMs, 30s);
  EXPECT_EQ(hints.pushback, Duration(1500ms));
  EXPECT_FALSE(hints.pushback_stop);
  EXPECT_FALSE(hints.do_not_retry);
}

TEST_F(PropagationTest, PushbackIsClampedToTheCallersMaximum) {
  EXPECT_EQ(ReadRetryHints(Headers{{"Retry-After", "86400"}}, kNowUnixMs, 30s).pushback, Duration(30s));
  EXPECT_EQ(ReadRetryHints(Headers{{"grpc-retry-pushback-ms", "999999999"}}, kNowUnixMs, 5s).pushback, Duration(5s));
  EXPECT_EQ(ReadRetryHints(Headers{{"Retry-After", "Sun, 15 Jun 2025 15:07:10 GMT"}}, kNowUnixMs, 1min).pushback,
            Duration(30s));
}

TEST_F(PropagationTest, TheLongerOfTwoPausesWins) {
  const Headers h = {{"Retry-After", "3"}, {"grpc-retry-pushback-ms", "1000"}};
  EXPECT_EQ(ReadRetryHints(h, kNowUnixMs, 30s).pushback, Duration(3s));
}

// A repeated hint must not be hidden behind a milder first copy.
TEST_F(PropagationTest, RepeatedHintsReadTheMostCautiousWayInEitherOrder) {
  for (const bool flip : {false, true}) {
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    Pairs h = {{"x-no-retry", "0"}, {"x-no-retry", "1"}, {"Retry-After", "1"}, {"Retry-After", "4"}};
    if (flip) std::swap(h[0], h[1]), std::swap(h[2], h[3]);
    const RetryHints hints = ReadRetryHints(h, kNowUnixMs, 30s);
    EXPECT_TRUE(hints.do_not_retry) << flip;
    EXPECT_EQ(hints.pushback, Duration(4s)) << flip;
    Pairs g = {{"grpc-retry-pushback-ms", "200"}, {"grpc-retry-pushback-ms", "-1"}};
    if (flip) std::swap(g[0], g[1]);
    const RetryHints grpc = ReadRetryHints(g, kNowUnixMs, 30s);
    EXPECT_TRUE(grpc.pushback_stop) << flip;
    EXPECT_FALSE(grpc.pushback.has_value()) << flip;
  }
}

TEST_F(PropagationTest, UnparseableGrpcPushbackMeansStopAsInGrpcA6) {
  const RetryHints hints = ReadRetryHints(Headers{{"grpc-retry-pushback-ms", "soon"}}, kNowUnixMs, 30s);
  EXPECT_TRUE(hints.pushback_stop);
  EXPECT_FALSE(hints.pushback.has_value());
}

TEST_F(PropagationTest, GarbageHttpHintsAreIgnored) {
  const RetryHints hints = ReadRetryHints(Headers{{"x-no-retry", "maybe"}, {"Retry-After", "-1"}}, kNowUnixMs, 30s);
  EXPECT_FALSE(hints.do_not_retry);
  EXPECT_FALSE(hints.pushback_stop);
  EXPECT_FALSE(hints.pushback.has_value());
}

}  // namespace
}  // namespace stormguard
