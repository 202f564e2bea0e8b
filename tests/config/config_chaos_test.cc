// The chaos stage in a configuration file: every option read and written
// back, every invalid value at its path, and the placement rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config_test_util.h"

namespace stormguard::config {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testkit::ErrorsOf;
using testkit::Inventory;

// One destination whose stages are a retry, then `chaos` as a chaos stage.
std::string InsideRetry(const std::string& chaos) {
  return Inventory(R"({"pipeline": {"stages": [{"retry": {}}, {"chaos": )" + chaos + "}]}}");
}

std::string Error(const std::string& tail) { return "destinations.inventory.pipeline.stages[1].chaos." + tail; }

constexpr std::string_view kEveryOption = R"({"kind": "latency", "enabled": false, "rate": 0.25,
    "status": {"code": "RESOURCE_EXHAUSTED", "message": "rehearsal"}, "latency": "50ms", "latency_max": "1.5s",
    "seed": 18446744073709551615, "outside_retry_because": ""})";

TEST(ConfigChaosTest, EveryOptionReadsAndWritesBackUnchanged) {
  const std::string text = InsideRetry(std::string(kEveryOption));
  const ParsedConfig parsed = ParseConfigText(text);
  ASSERT_THAT(parsed.errors, IsEmpty());
  const auto written = nlohmann::json::parse(ToJson(parsed.config));
  EXPECT_EQ(written["destinations"]["inventory"]["pipeline"]["stages"][1]["chaos"],
            nlohmann::json::parse(kEveryOption));
  const Result<Config> again = ParseConfig(ToJson(parsed.config));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ToJson(*again), ToJson(parsed.config));

  const StageConfig& s = parsed.config.destinations.at("inventory").pipeline.stages[1];
  ASSERT_EQ(s.kind(), "chaos");
  const ChaosOptions& o = s.options<ChaosConfig>()->options;
  EXPECT_EQ(o.kind, ChaosKind::kLatency);
  EXPECT_FALSE(o.enabled);
  EXPECT_EQ(o.rate, 0.25);
  EXPECT_EQ(o.status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(o.status.message(), "rehearsal");
  EXPECT_EQ(o.latency, 50ms);
  EXPECT_EQ(o.latency_max, 1500ms);
  EXPECT_EQ(o.seed, 18446744073709551615ULL);
}

TEST(ConfigChaosTest, OmittedFieldsKeepTheOptionsDefaults) {
  const Result<Config> c = ParseConfig(InsideRetry(R"({"status": {"code": 13}})"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const ChaosOptions& got = c->destinations.at("inventory").pipeline.stages[1].options<ChaosConfig>()->options;
  const ChaosOptions defaults;
  EXPECT_EQ(got.kind, defaults.kind);
  EXPECT_EQ(got.enabled, defaults.enabled);
  EXPECT_EQ(got.rate, defaults.rate);
  EXPECT_EQ(got.status.code(), StatusCode::kInternal);
  EXPECT_EQ(got.status.message(), defaults.status.message());  // a code alone keeps the message
  EXPECT_EQ(got.seed, 0U);
}

struct ChaosCase {
  const char* chaos;  // the chaos stage's options
  const char* error;  // after "...stages[1].chaos."
};

class ConfigChaosErrorTest : public ::testing::TestWithParam<ChaosCase> {};

TEST_P(ConfigChaosErrorTest, NamesThePathAndTheReason) {
  EXPECT_THAT(ErrorsOf(InsideRetry(GetParam().chaos)), Contains(Error(GetParam().error)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, ConfigChaosErrorTest,
    ::testing::Values(
        ChaosCase{R"({"rate": -0.1})", "rate: must be in [0, 1], got -0.1"},
        ChaosCase{R"({"rate": 1.5})", "rate: must be in [0, 1], got 1.5"},
        ChaosCase{R"({"rate": "NaN"})", "rate: must be a number, got \"NaN\""},
        ChaosCase{R"({"enabled": 1})", "enabled: must be true or false, got 1"},
        ChaosCase{R"({"kind": "drop"})", "kind: must be one of error, latency, outcome, got \"drop\""},
        ChaosCase{R"({"status": {"code": "NOT_A_CODE"}})",
                  "status.code: must be a status code name (\"UNAVAILABLE\") or number (0-16), got \"NOT_A_CODE\""},
        ChaosCase{R"({"status": {"code": 17}})",
                  "status.code: must be a status code name (\"UNAVAILABLE\") or number (0-16), got 17"},
        ChaosCase{R"({"status": {"code": "OK"}})", "status: must not be OK: an injected fault answers with an error"},
        ChaosCase{R"({"kind": "outcome", "status": {"code": 0}})",
                  "status: must not be OK: an injected fault answers with an error"},
        ChaosCase{R"({"status": {"message": 5}})", "status.message: must be a string, got 5"},
        ChaosCase{R"({"status": {"text": "x"}})", "status.text: unknown field"},
        ChaosCase{R"({"status": "UNAVAILABLE"})", "status: must be an object, got \"UNAVAILABLE\""},
        ChaosCase{R"({"kind": "latency", "latency": "2s", "latency_max": "1s"})",
                  "latency_max: must be 0 (a fixed delay) or in [latency, 1h]"},
        ChaosCase{R"({"kind": "latency", "latency": "2h"})", "latency: must be in [0, 1h]"},
        ChaosCase{R"({"kind": "latency", "latency": "inf"})", "latency: must be in [0, 1h]"},
        ChaosCase{R"({"kind": "latency", "latency": "-5ms"})", "latency: must not be negative, got \"-5ms\""},
        ChaosCase{R"({"seed": -1})", "seed: must be an integer in [0, 2^64 - 1], got -1"},
        ChaosCase{R"({"seed": 1.5})", "seed: must be an integer in [0, 2^64 - 1], got 1.5"},
        ChaosCase{R"({"outside_retry_because": 7})", "outside_retry_because: must be a string, got 7"},
        ChaosCase{R"({"probability": 0.5})", "probability: unknown field"}));

TEST(ConfigChaosTest, OutsideTheRetryIsRefusedUnlessItSaysWhy) {
  EXPECT_THAT(ErrorsOf(Inventory(R"({"pipeline": {"stages": [{"chaos": {}}, {"retry": {}}]}})")),
              ElementsAre("destinations.inventory.pipeline.stages[0]: outside retry (stages[1]) retries would never "
                          "see an injected fault; add it after AddRetry, or set outside_retry_because"));
  EXPECT_THAT(ErrorsOf(Inventory(R"({"pipeline": {"stages": [
      {"chaos": {"outside_retry_because": "whole-call failures"}}, {"retry": {}}]}})")),
              IsEmpty());
}

TEST(ConfigChaosTest, SeveralChaosStagesMayShareAPipeline) {
  const Result<Config> c = ParseConfig(Inventory(R"({"pipeline": {"stages": [{"retry": {}},
      {"chaos": {"kind": "latency", "latency": "10ms"}}, {"chaos": {"kind": "error"}}]}})"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->destinations.at("inventory").pipeline.stages.size(), 3U);
}

}  // namespace
}  // namespace stormguard::config
