// A stage order PipelineBuilder would refuse is an error when the file is
// read, at the offending stage's path, with the builder's own reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testkit::ErrorsOf;
using testkit::Inventory;

std::vector<std::string> StageErrors(const std::string& stages) {
  return ErrorsOf(Inventory(R"({"circuit_breaker": {}, "bulkhead": {}, "pipeline": {"stages": [)" + stages + "]}}"));
}

TEST(ConfigStageOrderTest, AHedgeOutsideTheRetry) {
  EXPECT_THAT(StageErrors(R"({"hedge": {"delay": "50ms"}}, {"retry": {}})"),
              ElementsAre("destinations.inventory.pipeline.stages[0]: outside retry (stages[1]) every hedged "
                          "attempt would retry on its own; add it after AddRetry"));
}

TEST(ConfigStageOrderTest, AnAttemptTimeoutOutsideTheRetry) {
  EXPECT_THAT(
      StageErrors(R"({"attempt_timeout": {"timeout": "1s"}}, {"retry": {}})"),
      ElementsAre(::testing::StartsWith("destinations.inventory.pipeline.stages[0]: outside retry (stages[1]) ")));
}

TEST(ConfigStageOrderTest, AnOverallTimeoutAndAFallbackInsideTheRetry) {
  EXPECT_THAT(
      StageErrors(R"({"retry": {}}, {"fallback": {}}, {"timeout": {"timeout": "1s"}})"),
      ElementsAre(::testing::StartsWith("destinations.inventory.pipeline.stages[1]: inside retry (stages[0]) "),
                  ::testing::StartsWith("destinations.inventory.pipeline.stages[2]: inside retry (stages[0]) ")));
}

TEST(ConfigStageOrderTest, TwoStagesOfOneKind) {
  EXPECT_THAT(StageErrors(R"("bulkhead", {"retry": {}}, "bulkhead", {"retry": {}})"),
              ElementsAre("destinations.inventory.pipeline.stages[2]: a second bulkhead stage (the first is stages[0])",
                          "destinations.inventory.pipeline.stages[3]: a second retry stage (the first is stages[1])"));
}

TEST(ConfigStageOrderTest, TheUsualOrderIsAccepted) {
  EXPECT_THAT(StageErrors(R"({"fallback": {}}, {"timeout": {"timeout": "1s"}}, {"retry": {}},
                             {"hedge": {"delay": "50ms"}}, "circuit_breaker", "bulkhead",
                             {"attempt_timeout": {"timeout": "300ms"}})"),
              IsEmpty());
}

// A stage whose kind is unknown reports only that: no order is guessed.
TEST(ConfigStageOrderTest, AnUnknownStageReportsNoOrder) {
  EXPECT_THAT(StageErrors(R"({"retry": {}}, "no_such_stage", {"retry": {}})"),
              ElementsAre(::testing::StartsWith("destinations.inventory.pipeline.stages[1]: unknown stage")));
}

// The reader and the builder give the same verdict and reason for every
// pair of these kinds (the builder's message is "stages[i] (kind): reason").
TEST(ConfigStageOrderTest, TheSameRuleAsThePipelineBuilder) {
  using Add = void (*)(PipelineBuilder&);
  const std::pair<const char*, Add> kinds[] = {
      {R"({"fallback": {}})", [](PipelineBuilder& b) { b.AddFallback(); }},
      {R"({"timeout": {"timeout": "1s"}})", [](PipelineBuilder& b) { b.AddTimeout(std::chrono::seconds(1)); }},
      {R"({"attempt_timeout": {"timeout": "1s"}})",
       [](PipelineBuilder& b) { b.AddAttemptTimeout(std::chrono::seconds(1)); }},
      {R"({"retry": {}})", [](PipelineBuilder& b) { b.AddRetry({}); }},
      {R"("require_idempotency_key")", [](PipelineBuilder& b) { b.AddRequireIdempotencyKey(); }},
      {R"("circuit_breaker")", [](PipelineBuilder& b) { b.AddCircuitBreaker(CircuitBreakerOptions{}); }},
      {R"("bulkhead")", [](PipelineBuilder& b) { b.AddBulkhead(BulkheadOptions{}); }},
  };
  int refused = 0;
  for (const auto& [outer_json, outer] : kinds) {
    for (const auto& [inner_json, inner] : kinds) {
      PipelineBuilder b;
      outer(b);
      inner(b);
      const Result<PipelineRef> built = b.Build();
      const std::vector<std::string> read = StageErrors(std::string(outer_json) + ", " + inner_json);
      const std::string pair = std::string(outer_json) + ", " + inner_json;
      if (built.ok()) {
        EXPECT_THAT(read, IsEmpty()) << pair;
        continue;
      }
      ++refused;
      ASSERT_EQ(read.size(), 1u) << pair << ": " << built.status().message();
      // "destinations.inventory.pipeline.stages[1]: <reason>" and "... stages[1] (retry): <reason>"
      const std::string reason = read[0].substr(read[0].find(": ") + 2);
      EXPECT_THAT(built.status().message(), ::testing::HasSubstr("): " + reason)) << pair;
    }
  }
  EXPECT_EQ(refused, 10);  // 7 second stages; fallback, timeout inside retry; attempt_timeout outside
}

}  // namespace
}  // namespace stormguard::config
