#include "stormguard/pipeline/presets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/pipeline/stages/retry_stage.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

const RetryOptions& RetryAt(const Pipeline& p, std::size_t i) {
  return dynamic_cast<const RetryStage&>(p.stage(i)).policy().options();
}
Duration TimeoutAt(const Pipeline& p, std::size_t i) {
  return dynamic_cast<const TimeoutStage&>(p.stage(i)).options().timeout;
}

TEST(PresetsTest, UserFacingRetriesOnlyAtTheEntryWithinOneSecond) {
  ManualEnv env;
  PipelineRef entry = Unwrap(presets::UserFacing({}, env.options()).Build());
  EXPECT_EQ(entry.Describe(), "timeout(1s) -> retry(3 attempts) -> call");
  EXPECT_EQ(TimeoutAt(*entry, 0), 1s);
  const RetryOptions& r = RetryAt(*entry, 1);
  EXPECT_EQ(r.max_attempts, 3);
  EXPECT_EQ(r.backoff.kind, BackoffKind::kExponential);
  EXPECT_EQ(r.backoff.base, 100ms);
  EXPECT_EQ(r.backoff.jitter, Jitter::kFull);

  PipelineRef hop = Unwrap(presets::UserFacing({.at_entry = false}, env.options()).Build());
  EXPECT_EQ(hop.Describe(), "timeout(inf) -> call");
}

TEST(PresetsTest, MiddleHopCancelsAtThePropagatedDeadline) {
  ManualEnv env;
  PipelineRef hop = Unwrap(presets::UserFacing({.at_entry = false}, env.options()).Build());
  CallContext ctx{.deadline = Deadline::After(env.clock.Now(), 600ms)};
  Status s = hop.Execute(ctx, [&](CallContext& c) {
    env.AdvanceAndFire(600ms);
    return c.stop.stop_requested() ? Status::Cancelled("stopped") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
}

TEST(PresetsTest, BackgroundJobHasEightAttemptsOfThirtySeconds) {
  ManualEnv env;
  PipelineRef p = Unwrap(presets::BackgroundJob({}, env.options()).Build());
  EXPECT_EQ(p.Describe(), "retry(8 attempts) -> attempt_timeout(30s) -> call");
  const RetryOptions& r = RetryAt(*p, 0);
  EXPECT_EQ(r.backoff.base, 1s);
  EXPECT_EQ(r.backoff.cap, 10min);
  EXPECT_TRUE(r.idempotent);
  EXPECT_EQ(TimeoutAt(*p, 1), 30s);
}

TEST(PresetsTest, BackgroundJobMarksTheLastFailureForTheDeadLetterQueue) {
  ManualEnv env;
  PipelineRef p = Unwrap(presets::BackgroundJob({}, env.options()).Build());
  CallContext ctx;
  int calls = 0;
  Status s = p.Execute(ctx, [&](CallContext&) {
    ++calls;
    return Status::Unavailable("down");
  });
  EXPECT_EQ(calls, 8);
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_LE(env.clock.total_slept(), 7 * 10min);
}

TEST(PresetsTest, ThirdPartyApiNeedsAKeyRetriesTwiceAndHasABreaker) {
  ManualEnv env;
  PipelineRef p = Unwrap(presets::ThirdPartyApi({}, env.options()).Build());
  EXPECT_EQ(p.Describe(),
            "idempotency_key -> retry(3 attempts) -> circuit_breaker(50% of 100 calls) -> "
            "attempt_timeout(2s) -> call");
  const RetryOptions& r = RetryAt(*p, 1);
  EXPECT_EQ(r.max_attempts, 3);
  EXPECT_EQ(r.backoff.base, 1s);
  EXPECT_EQ(r.backoff.jitter, Jitter::kProportional);
  const Backoff backoff = Unwrap(Backoff::Create(r.backoff));
  EXPECT_EQ(backoff.Range(1), std::make_pair(Duration(800ms), Duration(1200ms)));
  EXPECT_EQ(backoff.Range(2), std::make_pair(Duration(1600ms), Duration(2400ms)));
  const CircuitBreakerOptions& cb = dynamic_cast<const CircuitBreakerStage&>(p->stage(2)).breaker().options();
  EXPECT_EQ(cb.failure_rate_threshold, 0.5);
  EXPECT_EQ(cb.slow_call_rate_threshold, 0.5);
  EXPECT_EQ(cb.slow_call_duration, 2s);
  EXPECT_EQ(cb.wait_in_open, 30s);
  EXPECT_EQ(cb.window_size, 100);
  EXPECT_EQ(TimeoutAt(*p, 3), 2s);

  CallContext ctx{.idempotency_key = "req-7"};
  int calls = 0;
  Status s = p.Execute(ctx, [&](CallContext&) {
    ++calls;
    return Status::Unknown("timed out reading");
  });
  EXPECT_EQ(calls, 3);  // ambiguous, but the key makes a retry safe
}

TEST(PresetsTest, PaymentNeverRetriesAndConfirmsUnknownOutcomes) {
  ManualEnv env;
  EXPECT_FALSE(presets::Payment({}, env.options()).Build().ok());  // the promised timeout is required
  PipelineRef p = Unwrap(presets::Payment({.promised_timeout = 3s}, env.options()).Build());
  EXPECT_EQ(p.Describe(), "idempotency_key -> fallback -> timeout(3s) -> call");

  CallContext no_key;
  EXPECT_EQ(p.Execute(no_key, [](CallContext&) { return Status::Ok(); }).source(), "idempotency_key");

  CallContext ctx{.idempotency_key = "charge-42"};
  int charges = 0, queries = 0;
  Status s = p.Execute(
      ctx,
      [&](CallContext&) {
        ++charges;
        return Status::Unknown("connection lost after sending");
      },
      [&](const Status&) {
        ++queries;
        return Status::Ok();
      });  // the query finds the charge
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(charges, 1);
  EXPECT_EQ(queries, 1);

  s = p.Execute(
      ctx, [&](CallContext&) { return Status::FailedPrecondition("card declined"); },
      [&](const Status&) {
        ++queries;
        return Status::Ok();
      });
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);  // a clear answer needs no query
  EXPECT_EQ(queries, 1);
}

TEST(PresetsTest, HighFanOutFallsBackInsteadOfRetrying) {
  ManualEnv env;
  auto missing = presets::HighFanOut({}, env.options()).Build();
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("stages[1] (timeout): timeout: must be positive"));

  PipelineRef p = Unwrap(
      presets::HighFanOut({.per_downstream_timeout = 80ms, .skip_when_remaining_below = 20ms}, env.options()).Build());
  EXPECT_EQ(p.Describe(), "fallback(skip below 20ms) -> timeout(80ms) -> call");
  CallContext ctx;
  int calls = 0;
  Result<int> r = p.Execute(
      ctx,
      [&](CallContext&) -> Result<int> {
        ++calls;
        return Status::Unavailable("shard down");
      },
      [](const Status&) -> Result<int> { return 0; });
  EXPECT_EQ(r.value(), 0);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace stormguard
