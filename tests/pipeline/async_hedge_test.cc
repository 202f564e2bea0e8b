// What only the asynchronous hedge has: the call answers without waiting
// for its losers, whose late reports are only booked, and no attempt
// starts once the call has its answer. Behaviour shared with the blocking
// hedge is in scenarios/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

HedgeOptions After(Duration delay) { return {.delay = delay, .max_hedged_attempts = 1, .idempotent = true}; }

// Attempts that answer only when the test says so, each keeping what it saw.
struct HeldAttempts {
  struct Held {
    int attempt;
    std::stop_token stop;
    std::optional<Completion<Result<int>>> done;
  };
  std::vector<Held> held;

  auto Attempt() {
    return [this](CallContext& c, Completion<Result<int>> done) {
      held.push_back({c.attempt, c.stop, std::move(done)});
    };
  }
  void Answer(std::size_t i, Result<int> r) { (*std::exchange(held[i].done, std::nullopt))(std::move(r)); }
};

// Tells, from outside, whether the frame holding it still exists.
int g_frames_alive = 0;
struct FrameSentinel {
  FrameSentinel() noexcept { ++g_frames_alive; }
  FrameSentinel(FrameSentinel&& o) noexcept : live(std::exchange(o.live, false)) {}
  ~FrameSentinel() {
    if (live) --g_frames_alive;
  }
  bool live = true;
};

TEST(AsyncHedgeTest, TheCallAnswersAtOnceAndALateLoserIsOnlyBooked) {
  ManualEnv env;
  CountingListener counters;
  auto workers = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters)).AddHedge(After(10ms), workers).Build());
  HeldAttempts attempts;
  std::vector<Result<int>> answers;
  CallContext ctx;
  p.ExecuteAsync<Result<int>>(
      ctx,
      [a = attempts.Attempt(), s = FrameSentinel()](CallContext& c, Completion<Result<int>> d) { a(c, std::move(d)); },
      [&](Result<int> r) { answers.push_back(std::move(r)); });
  env.AdvanceAndFire(10ms);
  ASSERT_EQ(attempts.held.size(), 2u);
  EXPECT_EQ(attempts.held[0].attempt, 1);
  EXPECT_EQ(attempts.held[1].attempt, 2);  // a hedge travels as a retry
  attempts.Answer(1, 42);
  ASSERT_EQ(answers.size(), 1u);  // answered without waiting for the primary
  EXPECT_EQ(*answers[0], 42);
  EXPECT_TRUE(attempts.held[0].stop.stop_requested());  // the loser was told to stop
  EXPECT_EQ(g_frames_alive, 1);                         // and the frame waits for its report
  attempts.Answer(0, 7);                                // it ignored its stop and answers late
  EXPECT_EQ(answers.size(), 1u);
  EXPECT_EQ(g_frames_alive, 0);
  EXPECT_EQ(counters.Read().count(EventKind::kAttemptEnded, PolicyId::kHedge), 2u);
}

TEST(AsyncHedgeTest, ALoserOfAnEarlierRoundDoesNotDisturbTheRetry) {
  ManualEnv env;
  auto workers = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddRetry({.max_attempts = 2, .backoff = {.base = 100ms, .jitter = Jitter::kNone}})
                             .AddHedge(After(10ms), workers)
                             .Build());
  HeldAttempts attempts;
  std::vector<Result<int>> answers;
  CallContext ctx;
  p.ExecuteAsync<Result<int>>(ctx, attempts.Attempt(), [&](Result<int> r) { answers.push_back(std::move(r)); });
  env.AdvanceAndFire(10ms);
  ASSERT_EQ(attempts.held.size(), 2u);
  attempts.Answer(1, Status::ResourceExhausted("busy"));  // fatal for the hedge, retried by the retry
  env.AdvanceAndFire(100ms);
  ASSERT_EQ(attempts.held.size(), 3u);  // the second round's primary
  EXPECT_EQ(attempts.held[2].attempt, 2);
  attempts.Answer(0, 7);  // the first round's primary, late: booked, not an answer
  EXPECT_TRUE(answers.empty());
  env.AdvanceAndFire(10ms);  // the second round hedges as usual
  ASSERT_EQ(attempts.held.size(), 4u);
  attempts.Answer(3, 9);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(*answers[0], 9);
  attempts.Answer(2, 8);
  EXPECT_EQ(answers.size(), 1u);
}

// Waits `pause` on a timer before the rest of the call, and ignores the
// call's stop meanwhile (as some event loops' stages would).
class PauseStage final : public Stage, public AsyncStage {
 public:
  explicit PauseStage(Duration pause) : pause_(pause) {}
  std::string_view name() const noexcept override { return "pause"; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
  const AsyncStage* async() const noexcept override { return this; }
  AsyncStateLayout async_state() const noexcept override { return AsyncStateLayout::Of<AsyncStep>(); }
  void Start(AsyncStep step) const override {
    step.state<AsyncStep>() = step;
    step.timers().Schedule(step.clock().Now() + pause_, &Resumed, &step.state<AsyncStep>());
  }
  void Resume(AsyncStep step, Status inner) const override { step.Finish(std::move(inner)); }

 private:
  static void Resumed(void* arg) noexcept { static_cast<AsyncStep*>(arg)->RunInner(); }
  Duration pause_;
};

TEST(AsyncHedgeTest, NoAttemptStartsOnceTheCallHasItsAnswer) {
  ManualEnv env;
  CountingListener counters;
  auto workers = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  PipelineRef p = Unwrap(PipelineBuilder(env.options(&counters))
                             .AddHedge(After(5ms), workers)
                             .Add(std::make_shared<PauseStage>(20ms))
                             .Build());
  int started = 0;
  std::vector<Status> answers;
  CallContext ctx;
  p.ExecuteAsync(
      ctx, [&](CallContext&, Completion<Status> done) { ++started, done(Status::Ok()); },
      [&](Status s) { answers.push_back(s); });
  env.AdvanceAndFire(5ms);   // the hedge launches and pauses until 25ms
  env.AdvanceAndFire(15ms);  // the primary's attempt starts and answers at 20ms
  ASSERT_EQ(answers.size(), 1u);
  env.AdvanceAndFire(5ms);  // the hedge's pause ends after the answer
  EXPECT_EQ(started, 1);
  EXPECT_EQ(counters.Read().count(EventKind::kAttemptStarted, PolicyId::kPipeline), 1u);
  EXPECT_EQ(counters.Read().count(EventKind::kAttemptEnded, PolicyId::kHedge), 2u);  // the hedge ended CANCELLED
}

}  // namespace
}  // namespace stormguard
