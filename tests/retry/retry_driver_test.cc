#include "stormguard/retry/retry_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <vector>

#include "retry/fake_budget.h"
#include "stormguard/retry/token_bucket_budget.h"
#include "testkit/recording_listener.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;

RetryPolicy Make(RetryOptions o) {
  auto p = RetryPolicy::Create(std::move(o));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

RetryOptions Fixed(int attempts, Duration wait) {
  return RetryOptions{.max_attempts = attempts, .backoff = {.kind = BackoffKind::kConstant, .base = wait, .cap = wait}};
}

using testkit::RecordingListener;

// A clock whose sleep is interrupted: the stop fires while the driver waits.
class InterruptingClock final : public Clock {
 public:
  TimePoint Now() const noexcept override { return inner.Now(); }
  bool SleepUntil(TimePoint, std::stop_token stop) override {
    source.request_stop();
    return !stop.stop_requested();
  }
  ManualClock inner;
  std::stop_source source;
};

TEST(RetryDriverTest, ReturnsFirstSuccessWithoutWaiting) {
  ManualClock clock;
  Random rng(1);
  RetryRun run;
  CallContext ctx;
  Status s = ExecuteWithRetry(
      Make(Fixed(3, 100ms)), ctx, [](CallContext&) { return Status::Ok(); }, clock, rng, &run);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(clock.sleep_count(), 0);
}

TEST(RetryDriverTest, RetriesTransientFailuresWithBackoffUntilSuccess) {
  ManualClock clock;
  Random rng(1);
  RetryRun run;
  CallContext ctx;
  std::vector<int> seen;
  Result<int> r = ExecuteWithRetry(
      Make(Fixed(5, 100ms)), ctx,
      [&](CallContext& a) -> Result<int> {
        seen.push_back(a.attempt);
        if (a.attempt < 3) return Status::Unavailable("blip");
        return 42;
      },
      clock, rng, &run);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_THAT(seen, ElementsAre(1, 2, 3));
  EXPECT_EQ(run.attempts, 3);
  EXPECT_EQ(clock.total_slept(), 200ms);
  EXPECT_EQ(ctx.attempt, 1);  // restored for the caller
}

// A value that can be moved into place but never assigned: the driver
// rebuilds its one result for each retry instead of assigning to it.
struct Receipt {
  const int id;
};

TEST(RetryDriverTest, RetriesAResultWhoseValueCannotBeAssigned) {
  ManualClock clock;
  Random rng(1);
  CallContext ctx;
  Result<Receipt> r = ExecuteWithRetry(
      Make(Fixed(3, 10ms)), ctx,
      [](CallContext& a) -> Result<Receipt> {
        if (a.attempt < 3) return Status::Unavailable("blip");
        return Receipt{.id = a.attempt};
      },
      clock, rng);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->id, 3);
}

TEST(RetryDriverTest, AWaitCancelledAfterAFailureAnswersCancelledForAValueCall) {
  InterruptingClock clock;
  Random rng(1);
  CallContext ctx{.stop = clock.source.get_token()};
  Result<Receipt> r = ExecuteWithRetry(
      Make(Fixed(3, 10ms)), ctx, [](CallContext&) -> Result<Receipt> { return Status::Unavailable("blip"); }, clock,
      rng);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(r.status().message(), "cancelled while waiting to retry");
}

// The deadline demo: 250 ms budget, each call 60 ms, always 503, max 5
// attempts, exponential 20 ms base with full jitter, 60 ms minimum call.
struct SeedDemo {
  Status status;
  RetryRun run;
};
SeedDemo RunSeedDeadlineDemo(std::shared_ptr<RetryBudget> budget) {
  ManualClock clock;
  Random rng(7);
  RetryOptions o{.max_attempts = 5,
                 .backoff = {.kind = BackoffKind::kExponential, .base = 20ms, .cap = 200ms, .jitter = Jitter::kFull},
                 .min_attempt_time = 60ms,
                 .budget = std::move(budget)};
  CallContext ctx{.deadline = Deadline::After(clock.Now(), 250ms)};
  SeedDemo demo;
  demo.status = ExecuteWithRetry(
      Make(o), ctx,
      [&](CallContext&) {
        clock.Advance(60ms);
        return Status::Unavailable("503");
      },
      clock, rng, &demo.run);
  return demo;
}

TEST(RetryDriverTest, SeedDeadlineDemoStopsAfterThreeCallsWhenBudgetCannotFitAnother) {
  auto budget = std::make_shared<testkit::FakeBudget>(10);
  SeedDemo demo = RunSeedDeadlineDemo(budget);
  EXPECT_EQ(demo.run.attempts, 3);
  EXPECT_EQ(demo.run.reason, StopReason::kDeadline);
  EXPECT_EQ(std::count(budget->log.begin(), budget->log.end(), "acquire"), 2);
  EXPECT_TRUE(demo.status.hints().do_not_retry);  // this layer gave up for the whole chain
}

TEST(RetryDriverTest, SeedDeadlineDemoWithTheSeedsTokenBucketLeavesEightTokens) {
  auto budget = TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1}).value();
  SeedDemo demo = RunSeedDeadlineDemo(budget);
  EXPECT_EQ(demo.run.attempts, 3);
  EXPECT_EQ(demo.run.reason, StopReason::kDeadline);
  EXPECT_DOUBLE_EQ(budget->tokens(), 8.0);
}

TEST(RetryDriverTest, WaitsNeverPassTheCallDeadline) {
  ManualClock clock;
  Random rng(3);
  const TimePoint start = clock.Now();
  CallContext ctx{.deadline = Deadline::After(start, 1s)};
  RetryOptions o{.max_attempts = 100, .backoff = {.base = 10ms, .cap = 400ms, .jitter = Jitter::kEqual}};
  RetryRun run;
  ExecuteWithRetry(
      Make(o), ctx, [](CallContext&) { return Status::Unavailable("down"); }, clock, rng, &run);
  EXPECT_LE(clock.Now(), start + 1s);
  EXPECT_EQ(run.reason, StopReason::kDeadline);
}

TEST(RetryDriverTest, EachAttemptSeesItsOwnDeadlineAndTheCallDeadlineIsRestored) {
  ManualClock clock;
  Random rng(1);
  RetryOptions o = Fixed(2, 10ms);
  o.per_attempt_timeout = 300ms;
  o.idempotent = true;  // a timed-out attempt is ambiguous
  const Deadline call = Deadline::After(clock.Now(), 1s);
  CallContext ctx{.deadline = call};
  std::vector<Duration> budgets;
  ExecuteWithRetry(
      Make(o), ctx,
      [&](CallContext& a) {
        budgets.push_back(a.deadline.Remaining(clock.Now()));
        clock.Advance(300ms);
        return Status::DeadlineExceeded("attempt timed out");
      },
      clock, rng);
  EXPECT_THAT(budgets, ElementsAre(300ms, 300ms));
  EXPECT_EQ(ctx.deadline, call);
}

TEST(RetryDriverTest, StopRequestedDuringWaitEndsTheCallAsCancelled) {
  InterruptingClock clock;
  Random rng(1);
  auto budget = std::make_shared<testkit::FakeBudget>(5);
  RetryOptions o = Fixed(3, 1s);
  o.budget = budget;
  CallContext ctx{.stop = clock.source.get_token()};
  RetryRun run;
  int calls = 0;
  Status s = ExecuteWithRetry(
      Make(o), ctx,
      [&](CallContext&) {
        ++calls;
        return Status::Unavailable("x");
      },
      clock, rng, &run);
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(run.reason, StopReason::kCancelled);
  EXPECT_THAT(budget->log, ElementsAre("start", "failure", "acquire", "retry_end", "end"));
}

TEST(RetryDriverTest, ExceptionsAreCaughtAndClassified) {
  ManualClock clock;
  Random rng(1);
  CallContext ctx;
  RetryRun run;
  Status s = ExecuteWithRetry(
      Make(Fixed(3, 1ms)), ctx, [](CallContext&) -> Status { throw std::runtime_error("socket closed mid-response"); },
      clock, rng, &run);
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
  EXPECT_EQ(run.reason, StopReason::kNotIdempotent);  // unknown exception = ambiguous
  Status bad = ExecuteWithRetry(
      Make(Fixed(3, 1ms)), ctx, [](CallContext&) -> Status { throw std::invalid_argument("bad order id"); }, clock, rng,
      &run);
  EXPECT_EQ(run.reason, StopReason::kNotRetryable);
  EXPECT_EQ(run.attempts, 1);
  EXPECT_FALSE(bad.hints().do_not_retry);  // permanent: nothing for the chain to learn
}

TEST(RetryDriverTest, BudgetSeesOneRequestAndEveryAttemptOutcome) {
  ManualClock clock;
  Random rng(1);
  auto budget = std::make_shared<testkit::FakeBudget>(1);
  RetryOptions o = Fixed(5, 1ms);
  o.budget = budget;
  CallContext ctx;
  RetryRun run;
  Status s = ExecuteWithRetry(
      Make(o), ctx, [](CallContext&) { return Status::Unavailable("x"); }, clock, rng, &run);
  EXPECT_EQ(run.reason, StopReason::kBudgetExhausted);
  EXPECT_THAT(budget->log, ElementsAre("start", "failure", "acquire", "failure", "retry_end", "refuse", "end"));
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_TRUE(ctx.downstream_gave_up);
}

TEST(RetryDriverTest, PermanentFailureCountsAsHealthyServerForTheBudget) {
  ManualClock clock;
  Random rng(1);
  auto budget = std::make_shared<testkit::FakeBudget>(1);
  RetryOptions o = Fixed(5, 1ms);
  o.budget = budget;
  CallContext ctx;
  ExecuteWithRetry(
      Make(o), ctx, [](CallContext&) { return Status::NotFound("no such order"); }, clock, rng);
  EXPECT_THAT(budget->log, ElementsAre("start", "success", "end"));
}

TEST(RetryDriverTest, DownstreamDoNotRetryPropagatesUpward) {
  ManualClock clock;
  Random rng(1);
  CallContext ctx;
  RetryRun run;
  Status s = ExecuteWithRetry(
      Make(Fixed(3, 1ms)), ctx,
      [](CallContext&) {
        Status down = Status::Unavailable("C is down");
        down.mutable_hints().do_not_retry = true;
        return down;
      },
      clock, rng, &run);
  EXPECT_EQ(run.attempts, 1);
  EXPECT_EQ(run.reason, StopReason::kDownstreamGaveUp);
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_TRUE(ctx.downstream_gave_up);
}

TEST(RetryDriverTest, AResultCallThatGivesUpCarriesTheMarkInItsOwnStatus) {
  ManualClock clock;
  Random rng(1);
  CallContext ctx;
  Result<int> r = ExecuteWithRetry(
      Make(Fixed(2, 1ms)), ctx, [](CallContext&) -> Result<int> { return Status::Unavailable("x"); }, clock, rng);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().hints().do_not_retry);  // marked in the returned Result, not in a copy
  EXPECT_TRUE(ctx.downstream_gave_up);
}

TEST(RetryDriverTest, LayerThatNeverRetriesPassesFailuresThroughUnmarked) {
  ManualClock clock;
  Random rng(1);
  CallContext ctx;
  RetryRun run;
  Status s = ExecuteWithRetry(
      Make(Fixed(1, 1ms)), ctx, [](CallContext&) { return Status::Unavailable("x"); }, clock, rng, &run);
  EXPECT_EQ(run.reason, StopReason::kAttemptsExhausted);
  EXPECT_FALSE(s.hints().do_not_retry);  // the layer above may still retry
  EXPECT_FALSE(ctx.downstream_gave_up);
}

TEST(RetryDriverTest, ListenerSeesAttemptsRetriesAndTheReasonForGivingUp) {
  ManualClock clock;
  Random rng(1);
  RecordingListener listener;
  RetryOptions o = Fixed(2, 5ms);
  o.listener = &listener;
  CallContext ctx;
  ExecuteWithRetry(
      Make(o), ctx, [](CallContext&) { return Status::Unavailable("x"); }, clock, rng);
  EXPECT_THAT(listener.Kinds(), ElementsAre("attempt_ended", "retry_scheduled", "attempt_ended", "gave_up"));
  EXPECT_THAT(listener.Reasons(EventKind::kGaveUp), ElementsAre("attempts_exhausted"));
}

}  // namespace
}  // namespace stormguard
