// A careless or hostile file: huge, deep, out of range. Each is refused
// with its reason, in time and memory linear in its size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace stormguard::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testkit::ErrorsOf;
using testkit::Inventory;

TEST(ConfigBoundsTest, RefusesADocumentAboveTheSizeLimit) {
  const std::string text = R"({"destinations": {}, "pad": ")" + std::string(kMaxConfigBytes, 'x') + "\"}";
  EXPECT_THAT(ErrorsOf(text),
              ElementsAre("document: is " + std::to_string(text.size()) + " bytes, more than the limit of 4194304"));
}

TEST(ConfigBoundsTest, RefusesDeepNestingBeforeBuildingIt) {
  const std::string ok = R"({"destinations": {"a": {"methods": {"m": {"retry": {"backoff": {}}}}}}})";
  EXPECT_THAT(ErrorsOf(ok), ::testing::IsEmpty());
  const std::string deep = std::string(17, '[') + std::string(17, ']');
  EXPECT_THAT(ErrorsOf(deep), ElementsAre("document: is nested more than 16 levels deep"));
  // A million levels: refused at level 17, no stack or memory blow-up.
  EXPECT_THAT(ErrorsOf(std::string(1'000'000, '[')), ElementsAre("document: is nested more than 16 levels deep"));
}

// The JSON parser stops at a NUL as at the end of the text: what follows
// it must not be ignored.
TEST(ConfigBoundsTest, RefusesANulByteAnywhere) {
  EXPECT_THAT(ErrorsOf(std::string(R"({"destinations": {}})") + '\0' + "garbage"),
              ElementsAre("document: has a NUL byte at offset 20 (JSON text has none)"));
  EXPECT_THAT(ErrorsOf(std::string(R"({"destinations": {"a)") + '\0' + R"(": {}}})"),
              ElementsAre("document: has a NUL byte at offset 20 (JSON text has none)"));
  EXPECT_THAT(ErrorsOf(R"({"destinations": {"a\u0000b": {}}})"), ::testing::IsEmpty());  // escaped: a name like any
}

TEST(ConfigBoundsTest, RefusesNumbersBeyondADouble) {
  EXPECT_THAT(ErrorsOf(Inventory(R"({"rate_limiter": {"rate": 1e400}})")),
              ElementsAre(HasSubstr("document: number overflow parsing '1e400'")));
  EXPECT_THAT(ErrorsOf(Inventory(R"({"rate_limiter": {"rate": -1e400}})")), ElementsAre(HasSubstr("number overflow")));
  // Large but finite: the options' own range check answers.
  EXPECT_THAT(ErrorsOf(Inventory(R"({"rate_limiter": {"rate": 1e300}})")),
              ElementsAre(HasSubstr("destinations.inventory.rate_limiter.rate: ")));
  EXPECT_THAT(ErrorsOf(Inventory(R"({"bulkhead": {"max_concurrent": 99999999999999999999999}})")),
              ElementsAre(HasSubstr("destinations.inventory.bulkhead.max_concurrent: must be an integer, got 9.99")));
}

TEST(ConfigBoundsTest, RefusesAKeyGivenTwice) {
  EXPECT_THAT(ErrorsOf(Inventory(R"({"bulkhead": {"max_concurrent": 1, "max_concurrent": 2}})")),
              ElementsAre("destinations.inventory.bulkhead: has the key \"max_concurrent\" twice in one object"));
  EXPECT_THAT(ErrorsOf(R"({"destinations": {}, "destinations": {}})"),
              ElementsAre("document: has the key \"destinations\" twice in one object"));
  EXPECT_THAT(ErrorsOf(R"({"destinations": {"d": {"pipeline": {"stages": [1, {"a": 1, "a": 2}]}}}})"),
              ElementsAre("destinations.d.pipeline.stages[1]: has the key \"a\" twice in one object"));
}

TEST(ConfigBoundsTest, MaxAttemptsUpToAThousand) {
  EXPECT_THAT(ErrorsOf(Inventory(R"({"pipeline": {"stages": [{"retry": {"max_attempts": 1000}}]}})")), IsEmpty());
  EXPECT_THAT(ErrorsOf(Inventory(R"({"pipeline": {"stages": [{"retry": {"max_attempts": 1001}}]}})")),
              ElementsAre("destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at most 1000"));
}

TEST(ConfigBoundsTest, RefusesHugeListsAndMaps) {
  std::string stages = R"({"pipeline": {"stages": [)";
  for (int i = 0; i <= 64; ++i) stages += std::string(i ? "," : "") + R"("require_idempotency_key")";
  EXPECT_THAT(ErrorsOf(Inventory(stages + "]}}")),
              ElementsAre("destinations.inventory.pipeline.stages: must be an array of at most 64 stages"));

  std::string codes = R"({"pipeline": {"stages": [{"retry": {"retryable_status_codes": [)";
  for (int i = 0; i <= 64; ++i) codes += std::string(i ? "," : "") + "14";
  EXPECT_THAT(ErrorsOf(Inventory(codes + "]}}]}}")),
              ElementsAre("destinations.inventory.pipeline.stages[0].retry.retryable_status_codes: must have at "
                          "most 64 items"));

  std::string many = R"({"destinations": {)";
  for (std::size_t i = 0; i <= kMaxDestinations; ++i) many += (i ? ",\"d" : "\"d") + std::to_string(i) + "\":{}";
  EXPECT_THAT(ErrorsOf(many + "}}"), ElementsAre("destinations: must have at most 10000 entries"));

  const std::string long_name(kMaxNameLength + 1, 'n');
  EXPECT_THAT(ErrorsOf(R"({"destinations": {")" + long_name + R"(": {}}})"),
              ElementsAre("destinations." + long_name.substr(0, 64) + ": a name must have 1 to 256 bytes"));
}

TEST(ConfigBoundsTest, AHugeArrayUnderAnUnknownKeyIsOneError) {
  std::string text = R"({"destinations": {}, "junk": [)";
  while (text.size() < kMaxConfigBytes - 16) text += "0,";
  text += "0]}";
  EXPECT_THAT(ErrorsOf(text), ElementsAre("junk: unknown field"));
}

TEST(ConfigBoundsTest, SyntaxErrorsSayWhere) {
  EXPECT_THAT(ErrorsOf(R"({"destinations": {)"), ElementsAre(HasSubstr("document: parse error at line 1")));
  EXPECT_THAT(ErrorsOf(""), ElementsAre(HasSubstr("document: parse error")));
  EXPECT_THAT(ErrorsOf("{\"destinations\": {\"\xff\": {}}}"), ElementsAre(HasSubstr("document: parse error")));
  EXPECT_THAT(ErrorsOf(R"({"destinations": {"a": {"pipeline": {"stages": [NaN]}}}})"),
              ElementsAre(HasSubstr("document: parse error")));
}

TEST(ConfigBoundsTest, LongValuesAreCutShortInMessages) {
  const std::string value(1000, 'v');
  const auto errors = ErrorsOf(Inventory(R"({"bulkhead": {"max_concurrent": ")" + value + R"("}})"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_LT(errors[0].size(), 120u) << errors[0];
}

}  // namespace
}  // namespace stormguard::config
