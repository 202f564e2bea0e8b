// Placement rules are data each stage declares; the builder applies them
// without knowing any stage kind. These stages are defined here, outside the
// library, to show that a new policy needs no change to the builder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using testkit::ManualEnv;
using testkit::Unwrap;

RetryOptions TwoAttempts() {
  return RetryOptions{
      .max_attempts = 2, .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms}, .idempotent = true};
}

// Must see every attempt, so it belongs inside the retry.
class PerAttemptAudit final : public Stage {
 public:
  static constexpr PlacementRule kRules[] = {
      {PlacementRule::kInside, "retry", "it would audit the call once, not every attempt"}};
  std::string_view name() const noexcept override { return "audit"; }
  StagePlacement placement() const noexcept override { return {.once = true, .rules = kRules}; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
};

TEST(StagePlacementTest, ACustomStageIsRefusedOutsideRetryWithItsOwnReason) {
  ManualEnv env;
  auto r = PipelineBuilder(env.options()).Add(std::make_shared<PerAttemptAudit>()).AddRetry(TwoAttempts()).Build();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("stages[0] (audit): outside retry (stages[1]) "
                                              "it would audit the call once, not every attempt"));
}

TEST(StagePlacementTest, ACustomStageWhereItsRulesWantItBuilds) {
  ManualEnv env;
  EXPECT_TRUE(
      PipelineBuilder(env.options()).AddRetry(TwoAttempts()).Add(std::make_shared<PerAttemptAudit>()).Build().ok());
  // Without a retry, "inside retry" asks nothing.
  EXPECT_TRUE(PipelineBuilder(env.options()).Add(std::make_shared<PerAttemptAudit>()).Build().ok());
}

TEST(StagePlacementTest, ACustomStageDeclaredOnceIsRefusedTwiceNamingTheFirst) {
  ManualEnv env;
  auto audit = std::make_shared<PerAttemptAudit>();
  auto r = PipelineBuilder(env.options()).AddRetry(TwoAttempts()).Add(audit).Add(audit).Build();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("stages[2] (audit): a second audit stage (the first is stages[1])"));
}

// Declares nothing: goes anywhere, any number of times.
class Plain final : public Stage {
 public:
  std::string_view name() const noexcept override { return "plain"; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
};

TEST(StagePlacementTest, AStageWithoutRulesGoesAnywhereAnyNumberOfTimes) {
  ManualEnv env;
  auto plain = std::make_shared<Plain>();
  PipelineRef p = Unwrap(
      PipelineBuilder(env.options()).Add(plain).AddTimeout(1s).Add(plain).AddRetry(TwoAttempts()).Add(plain).Build());
  EXPECT_EQ(p->stage(0).placement().kind, "");
  CallContext ctx;
  EXPECT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
}

// A rule must name the kind of stage it is relative to.
class Unanchored final : public Stage {
 public:
  static constexpr PlacementRule kRules[] = {{PlacementRule::kOutside, "", "no reason"}};
  std::string_view name() const noexcept override { return "unanchored"; }
  StagePlacement placement() const noexcept override { return {.kind = "loose", .rules = kRules}; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
};

TEST(StagePlacementTest, ARuleThatNamesNoKindIsRefused) {
  ManualEnv env;
  auto r = PipelineBuilder(env.options()).Add(std::make_shared<Unanchored>()).Build();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("stages[0] (loose): a placement rule names no stage kind"));
}

TEST(StagePlacementTest, BuiltInStagesExplainEveryRuleTheyBreak) {
  ManualEnv env;
  auto r =
      PipelineBuilder(env.options()).AddAttemptTimeout(1s).AddRetry(TwoAttempts()).AddTimeout(1s).AddFallback().Build();
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_THAT(m, HasSubstr("stages[0] (attempt_timeout): outside retry (stages[1]) it bounds all attempts "
                           "together; add it after AddRetry, or use AddTimeout"));
  EXPECT_THAT(m, HasSubstr("stages[2] (timeout): inside retry (stages[1]) it restarts with every attempt; add "
                           "it before AddRetry, or use AddAttemptTimeout"));
  EXPECT_THAT(m, HasSubstr("stages[3] (fallback): inside retry (stages[1]) it hides failures from the retry; "
                           "add it before AddRetry"));
  EXPECT_THAT(m, Not(HasSubstr("(retry):")));
}

// Runs the attempts itself, as a retry does, and reports their ends.
class Repeat final : public Stage {
 public:
  explicit Repeat(bool concurrent) : concurrent_(concurrent) {}
  std::string_view name() const noexcept override { return "repeat"; }
  StagePlacement placement() const noexcept override {
    return {.reports_attempt_end = true, .concurrent = concurrent_};
  }
  Status Execute(CallContext& ctx, Next next) const override {
    Status first = next(ctx);
    Status second = next(ctx);
    return first.ok() ? first : second;
  }

 private:
  bool concurrent_;
};

TEST(StagePlacementTest, AStageThatReportsAttemptEndsSilencesThePipelines) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters)).Add(std::make_shared<Repeat>(false)).Build());
  CallContext ctx;
  EXPECT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
  auto snap = counters.Read();
  EXPECT_EQ(snap.count(EventKind::kAttemptStarted, PolicyId::kPipeline), 2u);
  EXPECT_EQ(snap.count(EventKind::kAttemptEnded, PolicyId::kPipeline), 0u);
}

TEST(StagePlacementTest, AConcurrentStageKeepsTheFirstSuccessfulValue) {
  ManualEnv env;
  for (bool concurrent : {false, true}) {
    PipelineRef p = Unwrap(PipelineBuilder(env.options()).Add(std::make_shared<Repeat>(concurrent)).Build());
    CallContext ctx;
    int calls = 0;
    Result<int> r = p.Execute(ctx, [&](CallContext&) -> Result<int> { return ++calls; });
    ASSERT_TRUE(r.ok());
    // Sequential attempts keep the last value; concurrent ones race, so the
    // first success claims the result.
    EXPECT_EQ(*r, concurrent ? 1 : 2) << "concurrent=" << concurrent;
  }
}

}  // namespace
}  // namespace stormguard
