#include "stormguard/pipeline/stages/fallback_stage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

// A stage that always refuses, as a guard would.
class Refuses final : public Stage {
 public:
  explicit Refuses(std::string_view source) : source_(source) {}
  std::string_view name() const noexcept override { return source_; }
  Status Execute(CallContext&, Next) const override { return Status::Unavailable("refused").WithSource(source_); }

 private:
  std::string_view source_;
};

auto Degraded = [](const Status&) -> Result<std::string> { return std::string("degraded"); };

TEST(FallbackTest, FallsBackOnChosenOutcomeClassesOnly) {
  ManualEnv env;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options()).AddFallback({.on_outcomes = {OutcomeClass::kTransient}}).Build());
  CallContext ctx;
  Result<std::string> r = p.Execute(
      ctx, [](CallContext&) -> Result<std::string> { return Status::Unavailable("503"); }, Degraded);
  EXPECT_EQ(r.value(), "degraded");
  r = p.Execute(
      ctx, [](CallContext&) -> Result<std::string> { return Status::NotFound("404"); }, Degraded);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);  // permanent: not in on_outcomes
}

TEST(FallbackTest, SuccessNeverFallsBack) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddFallback().Build());
  CallContext ctx;
  Result<std::string> r = p.Execute(
      ctx, [](CallContext&) -> Result<std::string> { return std::string("fresh"); }, Degraded);
  EXPECT_EQ(r.value(), "fresh");
}

TEST(FallbackTest, FallsBackOnRejectionByANamedPolicy) {
  ManualEnv env;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options())
                 .AddFallback({.on_outcomes = {}, .on_any_rejection = false, .on_rejected_by = {"circuit_breaker"}})
                 .Add(std::make_shared<Refuses>("circuit_breaker"))
                 .Build());
  PipelineRef other =
      Unwrap(PipelineBuilder(env.options())
                 .AddFallback({.on_outcomes = {}, .on_any_rejection = false, .on_rejected_by = {"circuit_breaker"}})
                 .Add(std::make_shared<Refuses>("bulkhead"))
                 .Build());
  CallContext ctx;
  auto call = [](CallContext&) -> Result<std::string> { return std::string("unreachable"); };
  EXPECT_EQ(p.Execute(ctx, call, Degraded).value(), "degraded");
  Result<std::string> r = other.Execute(ctx, call, Degraded);
  EXPECT_EQ(r.status().source(), "bulkhead");  // not listed: passes through
}

TEST(FallbackTest, FallsBackAfterRetriesAreExhausted) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options(&counters))
                 .AddFallback()
                 .AddRetry({.max_attempts = 2, .backoff = {.kind = BackoffKind::kConstant, .base = 1ms, .cap = 1ms}})
                 .Build());
  CallContext ctx;
  int calls = 0;
  Status s = p.Execute(
      ctx,
      [&](CallContext&) {
        ++calls;
        return Status::Unavailable("down");
      },
      [](const Status& why) { return why.hints().do_not_retry ? Status::Ok() : Status::Internal("?"); });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(counters.Read().count(EventKind::kFallback, PolicyId::kFallback, "outcome"), 1u);
}

TEST(FallbackTest, SkipsTheCallWhenTheRemainingBudgetIsTooSmall) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options(&counters)).AddFallback({.skip_when_remaining_below = 50ms}).Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 30ms)};
  bool called = false;
  Status why_seen;
  Result<std::string> r = p.Execute(
      ctx,
      [&](CallContext&) -> Result<std::string> {
        called = true;
        return std::string("x");
      },
      [&](const Status& why) -> Result<std::string> {
        why_seen = why;
        return std::string("skipped");
      });
  EXPECT_FALSE(called);
  EXPECT_EQ(r.value(), "skipped");
  EXPECT_EQ(why_seen.source(), "fallback");
  EXPECT_EQ(counters.Read().count(EventKind::kFallback, PolicyId::kFallback, "low_budget"), 1u);

  CallContext roomy{.deadline = Deadline::After(env.clock.Now(), 80ms)};
  EXPECT_EQ(p.Execute(
                 roomy, [](CallContext&) -> Result<std::string> { return std::string("called"); }, Degraded)
                .value(),
            "called");
}

TEST(FallbackTest, WithoutACallSiteFallbackASkippedCallIsRefused) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddFallback({.skip_when_remaining_below = 50ms}).Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 10ms)};
  bool called = false;
  Status s = p.Execute(ctx, [&](CallContext&) {
    called = true;
    return Status::Ok();
  });
  EXPECT_FALSE(called);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.source(), "fallback");
  EXPECT_EQ(DefaultClassifier().Classify(s), OutcomeClass::kDeadlineExceeded);
}

TEST(FallbackTest, FallsBackWhenTheTimeoutCutsTheCall) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddFallback().AddTimeout(100ms).Build());
  CallContext ctx;
  Result<std::string> r = p.Execute(
      ctx,
      [&](CallContext& c) -> Result<std::string> {
        env.AdvanceAndFire(100ms);
        return c.stop.stop_requested() ? Result<std::string>(Status::Cancelled("stopped")) : std::string("x");
      },
      Degraded);
  EXPECT_EQ(r.value(), "degraded");
}

TEST(FallbackTest, ExceptionFromTheFallbackIsClassified) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddFallback().Build());
  CallContext ctx;
  Status s = p.Execute(
      ctx, [](CallContext&) { return Status::Unavailable("down"); },
      [](const Status&) -> Status { throw std::runtime_error("cache down too"); });
  // The fallback's own failure, caught and classified, not the callee's.
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
  EXPECT_EQ(s.message(), "cache down too");
  EXPECT_EQ(s.source(), "");
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kAmbiguous);
}

TEST(FallbackTest, ValidationNamesBadFields) {
  EXPECT_THAT(FallbackOptions{.skip_when_remaining_below = -1ms}.Validate(),
              ::testing::Contains("skip_when_remaining_below: must not be negative"));
  EXPECT_THAT((FallbackOptions{.on_outcomes = {}, .on_any_rejection = false}.Validate()),
              ::testing::Contains("on_outcomes: nothing would ever trigger the fallback"));
}

}  // namespace
}  // namespace stormguard
