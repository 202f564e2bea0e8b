// What only the completion driver has: its refusal of stages without an
// asynchronous form, its completion handle, and calls that outlive their
// pipeline. Behaviour shared with the blocking driver is in scenarios/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <thread>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::ManualEnv;
using testkit::Unwrap;

class BlockingOnly final : public Stage {
 public:
  std::string_view name() const noexcept override { return "audit"; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
};

RetryOptions TwoAttempts() { return {.max_attempts = 2, .backoff = {.base = 100ms, .jitter = Jitter::kNone}}; }

TEST(AsyncPipelineTest, AStageWithoutAnAsynchronousFormIsRefusedByName) {
  ManualEnv env;
  PipelineRef p =
      Unwrap(PipelineBuilder(env.options()).AddRetry(TwoAttempts()).Add(std::make_shared<BlockingOnly>()).Build());
  EXPECT_THAT(p.AsyncSupport().message(), HasSubstr("stages[1] (audit): has no asynchronous form"));
  int attempts = 0, answers = 0;
  Status got;
  CallContext ctx;
  p.ExecuteAsync(
      ctx, [&](CallContext&, Completion<Status> done) { ++attempts, done(Status::Ok()); },
      [&](Status s) { ++answers, got = s; });
  EXPECT_EQ(answers, 1);
  EXPECT_EQ(attempts, 0);
  EXPECT_EQ(got.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());  // the blocking driver runs it
}

TEST(AsyncPipelineTest, AnAttemptMayReportFromAnotherThread) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).AddRetry(TwoAttempts()).Build());
  std::thread worker;
  std::optional<Result<int>> got;
  CallContext ctx;
  p.ExecuteAsync<Result<int>>(
      ctx,
      [&](CallContext&, Completion<Result<int>> done) {
        worker = std::thread([d = std::move(done)]() mutable { d(42); });
      },
      [&](Result<int> r) { got = std::move(r); });
  worker.join();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(**got, 42);
  EXPECT_EQ(env.timers->armed(), 0u);  // the timeout's timer was disarmed
}

TEST(AsyncPipelineTest, ATimeoutsStopThatFiredIsNeverSeenByALaterCall) {
  // The timeout's stop_source is pooled per thread; a fired one must go away.
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).Build());
  std::optional<Completion<Status>> hanging;
  Status first;
  CallContext ctx;
  p.ExecuteAsync(
      ctx, [&](CallContext&, Completion<Status> done) { hanging.emplace(std::move(done)); },
      [&](Status s) { first = s; });
  env.AdvanceAndFire(1s);
  (*std::exchange(hanging, std::nullopt))(Status::Cancelled("saw the stop"));
  EXPECT_EQ(first.code(), StatusCode::kDeadlineExceeded);
  for (int i = 0; i < 20; ++i) {
    bool stopped_at_start = true;
    auto attempt = [&](CallContext& c, Completion<Status> done) {
      stopped_at_start = c.stop.stop_requested();
      done(Status::Ok());
    };
    p.ExecuteAsync(ctx, attempt, [](Status) {});
    EXPECT_FALSE(stopped_at_start) << "call " << i;
  }
}

// Tells, from outside, whether the callable holding it still exists.
std::atomic<bool> g_callable_alive{false};
std::atomic<bool> g_alive_after_done{false};
struct Sentinel {
  Sentinel() noexcept { g_callable_alive = true; }
  Sentinel(Sentinel&& o) noexcept : live(std::exchange(o.live, false)) {}
  ~Sentinel() {
    if (live) g_callable_alive = false;
  }
  bool live = true;
};

TEST(AsyncPipelineTest, TheAttemptOutlivesACallThatEndsWhileItIsStillStarting) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).Build());
  bool answered = false;
  CallContext ctx;
  p.ExecuteAsync(
      ctx,
      [s = Sentinel()](CallContext&, Completion<Status> done) {                    // touches nothing of itself below
        std::thread([d = std::move(done)]() mutable { d(Status::Ok()); }).join();  // the call has ended
        g_alive_after_done = g_callable_alive.load();                              // this callable must still exist
      },
      [&](Status) { answered = true; });
  EXPECT_TRUE(answered);
  EXPECT_TRUE(g_alive_after_done);
  EXPECT_FALSE(g_callable_alive);  // and is gone once it returned
}

TEST(AsyncPipelineTest, ADroppedCompletionHandleReportsInternal) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).Build());
  Status got;
  CallContext ctx;
  p.ExecuteAsync(
      ctx, [](CallContext&, Completion<Status>) {}, [&](Status s) { got = s; });
  EXPECT_EQ(got.code(), StatusCode::kInternal);
  EXPECT_THAT(got.message(), HasSubstr("dropped its completion handle"));
}

TEST(AsyncPipelineTest, AnAttemptThatThrowsReportsTheException) {
  ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).Build());
  Status got;
  int answers = 0;
  CallContext ctx;
  p.ExecuteAsync(
      ctx, [](CallContext&, Completion<Status>) { throw std::invalid_argument("bad request"); },
      [&](Status s) { ++answers, got = s; });
  EXPECT_EQ(answers, 1);
  EXPECT_FALSE(got.ok());
  EXPECT_THAT(got.message(), HasSubstr("bad request"));
}

TEST(AsyncPipelineTest, ACallInBackoffOutlivesItsPipeline) {
  ManualEnv env;
  auto p = std::make_unique<PipelineRef>(Unwrap(PipelineBuilder(env.options()).AddRetry(TwoAttempts()).Build()));
  int attempts = 0;
  std::optional<Result<int>> got;
  CallContext ctx;
  p->ExecuteAsync<Result<int>>(
      ctx,
      [&](CallContext&, Completion<Result<int>> done) {
        if (++attempts == 1) return done(Status::Unavailable("down"));
        done(7);
      },
      [&](Result<int> r) { got = std::move(r); });
  p.reset();  // the call is waiting 100ms for its retry
  EXPECT_FALSE(got.has_value());
  env.AdvanceAndFire(100ms);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(**got, 7);
  EXPECT_EQ(attempts, 2);
}

TEST(AsyncPipelineTest, TheListenerHearsEveryAttemptAsUnderTheBlockingDriver) {
  ManualEnv env;
  CountingListener counters;
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters)).AddRetry(TwoAttempts()).Build());
  int attempts = 0;
  CallContext ctx;
  p.ExecuteAsync(
      ctx,
      [&](CallContext&, Completion<Status> done) { done(++attempts == 1 ? Status::Unavailable("x") : Status::Ok()); },
      [](Status) {});
  env.AdvanceAndFire(100ms);
  const auto seen = counters.Read();
  EXPECT_EQ(seen.count(EventKind::kAttemptStarted, PolicyId::kPipeline), 2u);
  EXPECT_EQ(seen.count(EventKind::kRetryScheduled, PolicyId::kRetry), 1u);
}

// Another driver's timers, counting what the pipeline asks of them.
class CountingTimers final : public AsyncTimers {
 public:
  explicit CountingTimers(TimerService& base) : base_(base) {}
  Clock& clock() const noexcept override { return base_.clock(); }
  AsyncTimerHandle Schedule(TimePoint t, Callback callback, void* arg) noexcept override {
    ++scheduled;
    return base_.Schedule(t, callback, arg);
  }
  bool Cancel(AsyncTimerHandle& h) noexcept override { return base_.Cancel(h); }
  int scheduled = 0;

 private:
  TimerServiceTimers base_;
};

TEST(AsyncPipelineTest, AnotherDriversTimersCarryTheWaits) {
  ManualEnv env;
  CountingTimers timers(*env.timers);
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddRetry(TwoAttempts()).Build());
  int attempts = 0;
  Status got = Status::Internal("no answer");
  CallContext ctx;
  p.ExecuteAsync(
      timers, ctx,
      [&](CallContext&, Completion<Status> done) { done(++attempts == 1 ? Status::Unavailable("x") : Status::Ok()); },
      [&](Status s) { got = s; });
  EXPECT_EQ(timers.scheduled, 1);  // the backoff
  env.AdvanceAndFire(100ms);
  EXPECT_TRUE(got.ok());
}

}  // namespace
}  // namespace stormguard
